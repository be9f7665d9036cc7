-- The resources of a project, one table per type, each keyed by (project_id, id) as its resource name is.

-- A cluster's spec holds its totals (machineCount, totalCpuCores, …, totalPriceHr), rewritten in the transaction
-- that changes one of its machines; its machines live in cluster_machines and are put back into `machines` when
-- the cluster is read.
CREATE TABLE clusters (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE cluster_machines (
  project_id text NOT NULL,
  id text NOT NULL,
  cluster_id text NOT NULL,
  -- The machine's place in its cluster's `machines`.
  position integer NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, cluster_id) REFERENCES clusters (project_id, id),
  UNIQUE (project_id, cluster_id, position)
);

CREATE TABLE machines (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE virtual_machines (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE disks (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE images (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE networks (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

-- updateClusterMachine checks each of volumeIds against this table's key.
CREATE TABLE volumes (
  project_id text NOT NULL REFERENCES projects (id),
  id text NOT NULL,
  spec jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);

-- A cluster as the API shows it: its spec with its machines, in their order.
CREATE FUNCTION cluster_object(project text, cluster text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT c.spec || jsonb_build_object('machines', coalesce(
    (SELECT jsonb_agg(m.spec ORDER BY m.position) FROM cluster_machines m
      WHERE m.project_id = c.project_id AND m.cluster_id = c.id),
    '[]'::jsonb))
  FROM clusters c WHERE c.project_id = project AND c.id = cluster);
END
$$;
