/**
 * The types of the stub: the spec's resources (as the client names them) and the shape of a fixture file.
 * @see openapi/components/schemas/
 */
import type * as Spec from "@compute-api/client";
import type { operations } from "@compute-api/spec/types";

// The client's named aliases of the spec's schemas: one name for each type across the repository.
export type {
  BillingAccount,
  Cluster,
  ClusterMachine,
  Disk,
  Image,
  Machine,
  Network,
  Project,
  SearchResult,
  UpdateClusterMachineRequest,
  VirtualMachine,
  Volume,
} from "@compute-api/client";

/** The resource types search knows, such as `cluster` or `virtualMachine`. */
export type ResourceType = Spec.SearchResult["resourceType"];

/** The JSON body of a 200 response of an operation. */
export type ResponseBody<Op extends keyof operations> = operations[Op]["responses"][200]["content"]["application/json"];

/** An API key of a fixture user: its value in clear (hashed at load) or its SHA-256 in hex. */
export interface FixtureApiKey {
  /** The key's id, as `apikeyId` of createApiKey. */
  id: string;
  /** The key itself; only its SHA-256 is kept in memory. */
  key?: string;
  /** SHA-256 of the key in lowercase hex, for files that should not hold the key. */
  sha256?: string;
  /** When the key was created; default: start-up. */
  createTime?: string;
}

/** A user: who an API key acts for, and which projects and billing accounts it may access. */
export interface FixtureUser {
  id: string;
  email?: string;
  /** Projects the user may access (and everything in them). */
  projectIds: string[];
  /** Billing accounts the user may see. */
  billingAccountIds: string[];
  /** Whether the user may create API keys (createApiKey answers 403 otherwise); default true. */
  canCreateApiKeys?: boolean;
  /** Whether the user may search (searchResources answers 403 otherwise), as a deploy bot's key may not; default true. */
  canSearch?: boolean;
  apiKeys?: FixtureApiKey[];
}

/** The data the stub serves: what `--data` reads and the built-in fixtures and the generator produce. */
export interface Fixtures {
  users: FixtureUser[];
  billingAccounts?: Spec.BillingAccount[];
  projects?: Spec.Project[];
  /** Clusters with their machines (`machines`); their totals are computed by the stub. */
  clusters?: Spec.Cluster[];
  machines?: Spec.Machine[];
  virtualMachines?: Spec.VirtualMachine[];
  disks?: Spec.Disk[];
  images?: Spec.Image[];
  networks?: Spec.Network[];
  volumes?: Spec.Volume[];
}

/** The collections of a fixture file that hold resources of a project, with their search type. */
export const projectCollections = {
  clusters: "cluster",
  disks: "disk",
  images: "image",
  machines: "machine",
  networks: "network",
  virtualMachines: "virtualMachine",
  volumes: "volume",
} as const satisfies Partial<Record<keyof Fixtures, ResourceType>>;

export type ProjectCollection = keyof typeof projectCollections;
