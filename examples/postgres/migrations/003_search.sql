-- What search reads: one entry per searchable resource, and the distinct lowercased values of its string fields,
-- as an id or name (primary) or as another field. A trigram index finds the values that hold a term.
-- @see openapi/paths/v1_resources_search.yaml

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE search_entries (
  entry_id integer PRIMARY KEY,
  resource_type text NOT NULL,
  -- Results are ordered by it in code point order, which is byte order in UTF-8: collation "C".
  resource_name text COLLATE "C" NOT NULL UNIQUE,
  resource_id text NOT NULL,
  -- Who may see the entry: the users of its project (a project and everything in it), or of its billing account.
  project_id text REFERENCES projects (id),
  billing_account_id text REFERENCES billing_accounts (id),
  CHECK ((project_id IS NULL) <> (billing_account_id IS NULL))
);

-- A type-only query (`type:cluster`) reads the type's entries in resourceName order.
CREATE INDEX search_entries_type_name ON search_entries (resource_type, resource_name);

-- One row per distinct lowercased value of an entry's primary fields (is_primary) or other fields.
CREATE TABLE search_values (
  entry_id integer NOT NULL REFERENCES search_entries (entry_id),
  is_primary boolean NOT NULL,
  -- Lowercased by JavaScript's toLowerCase when loaded, as the query's terms are (PostgreSQL's lower() differs
  -- for some characters). Not in a btree: values have no length limit, and a btree entry does.
  value text COLLATE "C" NOT NULL
);

-- The values that hold a term: LIKE '%term%' through the trigram index.
CREATE INDEX search_values_trigrams ON search_values USING gin (value gin_trgm_ops);

-- A search result's typed object, as it is now (a cluster with its machines and totals).
-- (plpgsql, whose statements are planned once per connection: a SQL function with sub-selects is planned per call.)
CREATE FUNCTION resource_object(kind text, project text, resource text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  CASE kind
    WHEN 'billingAccount' THEN RETURN (SELECT spec FROM billing_accounts WHERE id = resource);
    WHEN 'project' THEN RETURN (SELECT spec FROM projects WHERE id = resource);
    WHEN 'cluster' THEN RETURN cluster_object(project, resource);
    WHEN 'disk' THEN RETURN (SELECT spec FROM disks WHERE project_id = project AND id = resource);
    WHEN 'image' THEN RETURN (SELECT spec FROM images WHERE project_id = project AND id = resource);
    WHEN 'machine' THEN RETURN (SELECT spec FROM machines WHERE project_id = project AND id = resource);
    WHEN 'network' THEN RETURN (SELECT spec FROM networks WHERE project_id = project AND id = resource);
    WHEN 'virtualMachine' THEN RETURN (SELECT spec FROM virtual_machines WHERE project_id = project AND id = resource);
    WHEN 'volume' THEN RETURN (SELECT spec FROM volumes WHERE project_id = project AND id = resource);
    ELSE RETURN NULL;
  END CASE;
END
$$;
