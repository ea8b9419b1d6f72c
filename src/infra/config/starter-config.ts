/** The file `tidemark init` writes: every setting, commented, with its default. */
export const STARTER_CONFIG = `# Tidemark configuration. Every setting can be overridden by a TIDEMARK_* variable.
# Relative paths are resolved from this file's folder.

# Deployment environment: dev | prod (TIDEMARK_ENV).
env: dev

# Folder for the SQLite database, the blob store and pipeline files (TIDEMARK_DATA_DIR).
data_dir: ./data

database:
  # Default: a SQLite file at <data_dir>/tidemark.db. Another file:
  # url: sqlite:./data/tidemark.db
  # Or Postgres (TIDEMARK_DATABASE_URL):
  # url: postgres://user:password@host:5432/dbname
  busy_timeout_ms: 5000

# Where raw payloads are kept (TIDEMARK_BLOBS_DRIVER). Uncomment one of the two blocks.
blobs:
  # A local folder (the default: <data_dir>/blobs):
  # driver: fs
  # root: ./data/blobs
  # Or any S3-compatible store:
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
  # trace | debug | info | warn | error | fatal | silent (TIDEMARK_LOG_LEVEL). Unset, serve and
  # worker log at info and one-shot commands (which print their own summary) at warn.
  # level: info

runs:
  # A run holds its job's lease this long between heartbeats; a run whose process died is
  # marked abandoned once it expires (TIDEMARK_LEASE_TTL_SECONDS).
  lease_ttl_seconds: 60

# tidemark serve / tidemark worker (docs/server.md).
server:
  port: 8787                   # TIDEMARK_PORT
  host: 127.0.0.1              # TIDEMARK_HOST; 0.0.0.0 to listen on every interface
  # public_url: https://tidemark.example   # TIDEMARK_PUBLIC_URL: links in notifications
  # SIGTERM/SIGINT: in-flight runs get this long to finish (TIDEMARK_SHUTDOWN_GRACE_SECONDS).
  shutdown_grace_seconds: 30
  # A request body over this many bytes is answered 413 unread (TIDEMARK_BODY_LIMIT_BYTES).
  body_limit_bytes: 1048576
  # Reverse proxies in front of serve (addresses or CIDR ranges): the dashboard's sign-in
  # throttle counts by the client their X-Forwarded-For names (TIDEMARK_TRUSTED_PROXIES).
  trusted_proxies: []

# Bearer tokens of the HTTP API; serve refuses to start without one (unless
# --insecure-no-auth). Prefer TIDEMARK_API_TOKENS=tok1,tok2 over writing them here.
api_tokens: []

notify:
  # POSTed as JSON for every failed or abandoned run (TIDEMARK_NOTIFY_WEBHOOK_URL).
  # webhook_url: https://hooks.example/tidemark
  # webhook_secret: change-me  # signs bodies: X-Tidemark-Signature (TIDEMARK_NOTIFY_WEBHOOK_SECRET)
  retries: 5
  timeout_seconds: 10

scheduler:
  # A missed occurrence (process down) later than the grace: skip | run_once.
  misfire: skip
  misfire_grace_seconds: 60
  # Jobs are re-read this often, so added and changed jobs are picked up.
  reload_seconds: 30

# Queue of run requests and pipeline work: embedded (tables in the database above) or pg-boss
# (Postgres, for many workers on many machines) (TIDEMARK_QUEUE). See docs/queue.md.
queue: embedded
# pg_boss:                # url default: database.url, which must then be Postgres
#   url: postgres://user:password@host:5432/dbname   # TIDEMARK_PG_BOSS_URL
#   schema: pgboss        # TIDEMARK_PG_BOSS_SCHEMA
#   maintenance_interval_seconds: 30

# Per-pipeline settings (base URLs, directories); see docs/ for each pipeline. Each commented
# block below is valid as soon as it is uncommented.
pipelines:
  # snapshots:                     # docs/pipelines/snapshots.md
  #   storage: fs                  # fs (folder tree) | s3 (the blobs: store above)
  #   root: etl_data/raw_v1        # relative = under the data dir
  #   config_dir: etl_ops/config   # one <supplier>.yaml per supplier

  # rakuten:                       # docs/pipelines/rakuten.md
  #   base_url: https://openapi.rakuten.co.jp   # TIDEMARK_RAKUTEN_URL
  #   requests_per_second: 1       # per application id, shared by every run and process
  #   format_version: 2            # credentials: RAKUTEN_APPLICATION_ID, RAKUTEN_ACCESS_KEY
  #   embeddings:
  #     provider: local            # local (lexical, offline) | openai-compatible

  # mercari:                       # docs/pipelines/mercari.md
  #   base_url: https://api.mercari.jp   # TIDEMARK_MERCARI_URL
  #   requests_per_second: 1       # shared by every worker process
  #   first_run_max_pages: 100     # a product's first crawl reads every page up to this
  #   pages_per_run: 3             # later crawls read the newest pages only

  # email-analytics:               # docs/pipelines/email-analytics.md
  #   region: us                   # us | eu (api.eu.mailgun.net); base_url: TIDEMARK_MAILGUN_URL
  #   domain: mg.example.com       # MAILGUN_DOMAIN; the API key only in MAILGUN_API_KEY
  #   opened_lag_warning_minutes: 30

# Pipelines of your own (docs/write-a-pipeline.md): module paths, relative to this file, or
# installed package names; each exports a pipeline definition.
# plugins:
#   - ./pipelines/github.ts
#   - tidemark-pipeline-weather

# Starter jobs (jobs live in the database; add them once):
#   tidemark job add rakuten-ranking --type rakuten.ranking --params '{"genre_ids":[0]}'
#   tidemark job add mercari-hourly --type mercari.crawl --schedule "0 * * * *"
#   Ghost's \${s} \${m}/5 * * * * (a second and minute drawn once per process) is a
#   5-minute schedule with up to 299 s of per-process jitter:
#   tidemark job add mailgun-analytics --type email-analytics.fetch --schedule "*/5 * * * *" --jitter 299
`;
