-- Billing accounts, projects, users, their API keys and what each user may access.
-- Every resource keeps the object the API returns as `spec` (jsonb); columns hold what the rules look up.

CREATE TABLE billing_accounts (
  id text PRIMARY KEY,
  spec jsonb NOT NULL
);

CREATE TABLE projects (
  id text PRIMARY KEY,
  billing_account_id text NOT NULL REFERENCES billing_accounts (id),
  -- resourceCount is computed when the data is loaded (no operation creates or deletes resources).
  spec jsonb NOT NULL
);

CREATE TABLE users (
  id text PRIMARY KEY,
  -- The user's place in the data set: the first user gets the key of --api-key, as in the stub.
  position integer NOT NULL UNIQUE,
  email text,
  can_create_api_keys boolean NOT NULL DEFAULT true,
  can_search boolean NOT NULL DEFAULT true
);

-- A key is kept as the SHA-256 of its value only (lowercase hex), never the value.
CREATE TABLE api_keys (
  user_id text NOT NULL REFERENCES users (id),
  key_id text NOT NULL,
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  create_time timestamptz NOT NULL,
  -- createApiKey relies on this constraint for its 409 (never check-then-insert).
  CONSTRAINT api_keys_user_key_id UNIQUE (user_id, key_id),
  -- Authentication looks a key up by its hash; a key acts for one user only.
  CONSTRAINT api_keys_sha256 UNIQUE (sha256)
);

CREATE TABLE user_projects (
  user_id text NOT NULL REFERENCES users (id),
  project_id text NOT NULL REFERENCES projects (id),
  PRIMARY KEY (user_id, project_id)
);

CREATE TABLE user_billing_accounts (
  user_id text NOT NULL REFERENCES users (id),
  billing_account_id text NOT NULL REFERENCES billing_accounts (id),
  PRIMARY KEY (user_id, billing_account_id)
);
