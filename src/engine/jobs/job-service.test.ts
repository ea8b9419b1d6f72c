import { expect, it } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { NotFoundError, UsageError } from "../errors.ts";
import { JobService } from "./job-service.ts";

const spec = (over: Record<string, unknown> = {}) => ({
  name: "greet",
  type: "test.echo",
  params: { message: "hi" } as unknown,
  schedule: "*/5 * * * *" as string | null,
  timezone: "UTC",
  enabled: true,
  ...over,
});

describeEachDialect("jobs", (h) => {
  it("adds, shows, updates, disables and removes a job", async () => {
    const clock = new ManualClock("2026-02-02T02:02:02.000Z");
    const rt = await openTestRuntime(h, { clock });
    const jobs = new JobService(rt.db, rt.registry, clock);
    await jobs.add(spec());
    expect(await jobs.get("greet")).toEqual({
      ...spec(),
      createdAt: "2026-02-02T02:02:02.000Z",
      updatedAt: "2026-02-02T02:02:02.000Z",
    });
    clock.advance(1000);
    await jobs.update("greet", { params: { message: "yo" }, schedule: null });
    await jobs.update("greet", { enabled: false });
    const updated = await jobs.get("greet");
    expect(updated).toMatchObject({ params: { message: "yo" }, schedule: null, enabled: false });
    expect(updated.updatedAt).toBe("2026-02-02T02:02:03.000Z");
    await jobs.remove("greet");
    await expect(jobs.get("greet")).rejects.toThrow(NotFoundError);
    await expect(jobs.remove("greet")).rejects.toThrow('unknown job "greet"');
  });

  it("refuses bad names, types, params, schedules and time zones, writing nothing", async () => {
    const rt = await openTestRuntime(h);
    const jobs = new JobService(rt.db, rt.registry, rt.clock);
    await expect(jobs.add(spec({ name: "../etc" }))).rejects.toThrow(/job name "..\/etc"/);
    await expect(jobs.add(spec({ type: "x.y" }))).rejects.toThrow(
      'unknown job type "x.y"; known types: test.echo',
    );
    await expect(jobs.add(spec({ params: { message: 3 } }))).rejects.toThrow(
      /job greet params: message: .* \(got 3\)/,
    );
    await expect(jobs.add(spec({ params: { message: "x", extra: 1 } }))).rejects.toThrow(
      /unknown key\(s\) "extra"/,
    );
    await expect(jobs.add(spec({ schedule: "61 * * * *" }))).rejects.toThrow(
      /schedule "61 \* \* \* \*"/,
    );
    await expect(jobs.add(spec({ timezone: "Mars/Base" }))).rejects.toThrow(
      /timezone "Mars\/Base"/,
    );
    expect(await jobs.repo.list()).toEqual([]);
    await jobs.add(spec());
    await expect(jobs.add(spec())).rejects.toThrow(/already exists/);
    await expect(jobs.update("greet", { params: {} })).rejects.toThrow(UsageError);
    expect((await jobs.get("greet")).params).toEqual({ message: "hi" });
  });

  it("imports a file all-or-nothing and exports what import reads", async () => {
    const rt = await openTestRuntime(h);
    const jobs = new JobService(rt.db, rt.registry, rt.clock);
    await jobs.add(spec({ name: "keep", params: { message: "old" } }));
    const bad = {
      jobs: [
        spec({ name: "keep", params: { message: "new" } }),
        spec({ name: "broken", params: { message: 1 } }),
      ],
    };
    await expect(jobs.import(bad, "jobs.yaml")).rejects.toThrow(/jobs.yaml: jobs.1 \(broken\)/);
    expect((await jobs.get("keep")).params).toEqual({ message: "old" });
    expect(await jobs.repo.get("broken")).toBeUndefined();

    const good = {
      jobs: [spec({ name: "keep", params: { message: "new" } }), spec({ name: "fresh" })],
    };
    expect(await jobs.import(good, "jobs.yaml")).toEqual([
      { name: "keep", action: "updated" },
      { name: "fresh", action: "added" },
    ]);
    const exported = await jobs.export();
    expect(exported.jobs.map((j) => j.name)).toEqual(["fresh", "keep"]);
    // Round trip: importing the export changes nothing but updated_at.
    await jobs.import(exported, "export");
    expect((await jobs.export()).jobs).toEqual(exported.jobs);
    await expect(jobs.import({ jobs: [spec(), spec()] }, "dup.yaml")).rejects.toThrow(
      /duplicate job name/,
    );
    await expect(jobs.import({ job: [] }, "typo.yaml")).rejects.toThrow(/typo.yaml/);
  });
});
