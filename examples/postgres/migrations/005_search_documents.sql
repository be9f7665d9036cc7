-- What search reads, one row per entry: the entry's type, name and scope, and its values joined into two texts —
-- those of its id and name, and the others — each value between two separators (U+001F). A term is scored
-- against an entry by a few strpos calls over its two texts, where search_values made a row per value and term
-- to aggregate: a search of 8 one-letter terms over 100,000 resources read 2.6 million rows and grouped them
-- twice (2 s on PostgreSQL, 3.5 s on PGlite); here it reads 100,000 rows once.
-- @see openapi/paths/v1_resources_search.yaml

CREATE TABLE search_documents (
  entry_id integer PRIMARY KEY REFERENCES search_entries (entry_id),
  -- Copied from search_entries, so that the scope, the type filter and the order need no join per entry.
  resource_type text NOT NULL,
  resource_name text COLLATE "C" NOT NULL,
  resource_id text NOT NULL,
  project_id text,
  billing_account_id text,
  -- U+001F, then each value followed by U+001F: `\x1Fvol-data\x1F`. A term holds no control character (the
  -- query's pattern), so it never spans two values; an exact match is the term between separators, a prefix the
  -- term after one. A separator inside a value is stored as U+001E, which no term can match either.
  primary_text text COLLATE "C" NOT NULL,
  other_text text COLLATE "C" NOT NULL
);

-- The entries that hold a term of three letters or digits: LIKE '%term%' through the trigrams of either text.
CREATE INDEX search_documents_trigrams ON search_documents USING gin (primary_text gin_trgm_ops, other_text gin_trgm_ops);

-- The LIKE pattern of the entries that hold a term: `%term%`, its `\`, `%` and `_` escaped. (A SQL function,
-- inlined: given a term known when the statement is planned, the planner sees the pattern and can use the index.)
CREATE FUNCTION search_like_pattern(term text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '%' || replace(replace(replace(term, '\', '\\'), '%', '\%'), '_', '\_') || '%'
$$;

-- A document's text of values: U+001F, then each value followed by U+001F (a U+001F inside a value as U+001E).
CREATE FUNCTION search_text(vals text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT E'\x1f' || coalesce(string_agg(replace(v, E'\x1f', E'\x1e') || E'\x1f', ''), '') FROM unnest(vals) AS v
$$;

-- Values are only ever inserted (the PATCH changes none): each insert into search_values adds its values to their
-- entries' documents, the values of an entry that one statement did not finish appended by the next.
CREATE FUNCTION search_documents_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_documents AS d
  SELECT e.entry_id, e.resource_type, e.resource_name, e.resource_id, e.project_id, e.billing_account_id,
    search_text(array_agg(v.value) FILTER (WHERE v.is_primary)), search_text(array_agg(v.value) FILTER (WHERE NOT v.is_primary))
  FROM added v JOIN search_entries e ON e.entry_id = v.entry_id
  GROUP BY e.entry_id
  ON CONFLICT (entry_id) DO UPDATE SET
    primary_text = d.primary_text || substr(EXCLUDED.primary_text, 2),
    other_text = d.other_text || substr(EXCLUDED.other_text, 2);
  RETURN NULL;
END
$$;

CREATE TRIGGER search_values_documents AFTER INSERT ON search_values
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION search_documents_add();

-- A database loaded before this migration: the documents of its values. (search_values and its trigram indexes
-- stay, as migrations only add: a release before this one still searches through them.)
INSERT INTO search_documents
SELECT e.entry_id, e.resource_type, e.resource_name, e.resource_id, e.project_id, e.billing_account_id,
  search_text(array_agg(v.value) FILTER (WHERE v.is_primary)), search_text(array_agg(v.value) FILTER (WHERE NOT v.is_primary))
FROM search_values v JOIN search_entries e ON e.entry_id = v.entry_id
GROUP BY e.entry_id;
