/** The file `tidemark init` writes: every setting, commented, with its default. */
export const STARTER_CONFIG = `# Tidemark configuration. Every setting can be overridden by a TIDEMARK_* variable.
# Relative paths are resolved from this file's folder.

# Deployment environment: dev | prod (TIDEMARK_ENV).
env: dev

# Folder for the SQLite database, the blob store and pipeline files (TIDEMARK_DATA_DIR).
data_dir: ./data

database:
  # Default: a SQLite file at <data_dir>/tidemark.db.
  # For Postgres: url: postgres://user:password@host:5432/dbname (TIDEMARK_DATABASE_URL).
  # url: sqlite:./data/tidemark.db
  busy_timeout_ms: 5000

blobs:
  # fs: a local folder (default <data_dir>/blobs); s3: any S3-compatible store.
  driver: fs
  # root: ./data/blobs
  # driver: s3
  # s3:
  #   bucket: my-raw-bucket          # TIDEMARK_S3_BUCKET
  #   prefix: tidemark/              # TIDEMARK_S3_PREFIX
  #   region: us-east-1              # TIDEMARK_S3_REGION
  #   endpoint: https://s3.example   # TIDEMARK_S3_ENDPOINT (MinIO, R2, …)
  #   force_path_style: false
  #   # Credentials: TIDEMARK_S3_ACCESS_KEY_ID / TIDEMARK_S3_SECRET_ACCESS_KEY,
  #   # or the AWS SDK's default chain (environment, profile, instance role).

log:
  # trace | debug | info | warn | error | fatal | silent (TIDEMARK_LOG_LEVEL)
  level: info

runs:
  # A run holds its job's lease this long between heartbeats; a run whose process died is
  # marked abandoned once it expires (TIDEMARK_LEASE_TTL_SECONDS).
  lease_ttl_seconds: 60

# Per-pipeline settings (base URLs, directories); see docs/ for each pipeline.
pipelines: {}
`;
