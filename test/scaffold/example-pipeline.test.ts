// The example outside pipeline (examples/registry-feed), built only on the public entries: its
// own tests, run here against this checkout (CI runs them again from the packed tarball).
import "../../examples/registry-feed/test/conformance.test.ts";
import "../../examples/registry-feed/test/follow.test.ts";
