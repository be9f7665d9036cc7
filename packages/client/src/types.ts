/** Named aliases for every schema of the spec, so callers never index into `components` by hand. */
import type { components } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

/** The API key creation result. @see #/components/schemas/ApiKeyCreated */
export type ApiKeyCreated = components["schemas"]["ApiKeyCreated"];
/** Says which parts of the request are invalid (google.rpc.BadRequest), one violation per problem. @see #/components/schemas/BadRequest */
export type BadRequest = components["schemas"]["BadRequest"];
/** A billing account that projects are charged to. @see #/components/schemas/BillingAccount */
export type BillingAccount = components["schemas"]["BillingAccount"];
/** A search result whose resource is a billing account; `billingAccount` is present and no other typed object is. @see #/components/schemas/BillingAccountSearchResult */
export type BillingAccountSearchResult = components["schemas"]["BillingAccountSearchResult"];
/** A cluster of machines of one machine type. @see #/components/schemas/Cluster */
export type Cluster = components["schemas"]["Cluster"];
/** One machine of a cluster, as returned by the update operation and listed in `Cluster.machines`. @see #/components/schemas/ClusterMachine */
export type ClusterMachine = components["schemas"]["ClusterMachine"];
/** Lifecycle state of a machine in a cluster. @see #/components/schemas/ClusterMachineState */
export type ClusterMachineState = components["schemas"]["ClusterMachineState"];
/** A search result whose resource is a cluster; `cluster` is present and no other typed object is. @see #/components/schemas/ClusterSearchResult */
export type ClusterSearchResult = components["schemas"]["ClusterSearchResult"];
/** Lifecycle state of a cluster. @see #/components/schemas/ClusterState */
export type ClusterState = components["schemas"]["ClusterState"];
/** Length of the price commitment made for a resource. @see #/components/schemas/CommitmentTerm */
export type CommitmentTerm = components["schemas"]["CommitmentTerm"];
/** The API key to create. @see #/components/schemas/CreateApiKeyRequest */
export type CreateApiKeyRequest = components["schemas"]["CreateApiKeyRequest"];
/** A decimal number carried as text so that no precision is lost (google.type.Decimal). @see #/components/schemas/Decimal */
export type Decimal = components["schemas"]["Decimal"];
/** A disk of a project. @see #/components/schemas/Disk */
export type Disk = components["schemas"]["Disk"];
/** A search result whose resource is a disk; `disk` is present and no other typed object is. @see #/components/schemas/DiskSearchResult */
export type DiskSearchResult = components["schemas"]["DiskSearchResult"];
/** State of a disk. @see #/components/schemas/DiskState */
export type DiskState = components["schemas"]["DiskState"];
/** Role of a disk. @see #/components/schemas/DiskType */
export type DiskType = components["schemas"]["DiskType"];
/** The body of every failed request (google.rpc.Status). @see #/components/schemas/ErrorBody */
export type ErrorBody = components["schemas"]["ErrorBody"];
/** One detail of an error, named by its `@type`. @see #/components/schemas/ErrorDetail */
export type ErrorDetail = components["schemas"]["ErrorDetail"];
/** The cause of an error as a stable reason (google.rpc.ErrorInfo). @see #/components/schemas/ErrorInfo */
export type ErrorInfo = components["schemas"]["ErrorInfo"];
/** One problem with one part of a request. @see #/components/schemas/FieldViolation */
export type FieldViolation = components["schemas"]["FieldViolation"];
/** A private disk image of a project. @see #/components/schemas/Image */
export type Image = components["schemas"]["Image"];
/** A search result whose resource is an image; `image` is present and no other typed object is. @see #/components/schemas/ImageSearchResult */
export type ImageSearchResult = components["schemas"]["ImageSearchResult"];
/** IP-over-InfiniBand addressing of a cluster's network. @see #/components/schemas/IpoibConfig */
export type IpoibConfig = components["schemas"]["IpoibConfig"];
/** A standalone machine, in the form search returns (it differs from the cluster machine). @see #/components/schemas/Machine */
export type Machine = components["schemas"]["Machine"];
/** Power state of a machine. @see #/components/schemas/MachinePowerState */
export type MachinePowerState = components["schemas"]["MachinePowerState"];
/** A search result whose resource is a machine; `machine` is present and no other typed object is. @see #/components/schemas/MachineSearchResult */
export type MachineSearchResult = components["schemas"]["MachineSearchResult"];
/** Lifecycle state of a machine (search form). @see #/components/schemas/MachineState */
export type MachineState = components["schemas"]["MachineState"];
/** A private network of a project. @see #/components/schemas/Network */
export type Network = components["schemas"]["Network"];
/** A search result whose resource is a network; `network` is present and no other typed object is. @see #/components/schemas/NetworkSearchResult */
export type NetworkSearchResult = components["schemas"]["NetworkSearchResult"];
/** Lifecycle state of a network. @see #/components/schemas/NetworkState */
export type NetworkState = components["schemas"]["NetworkState"];
/** Interconnect technology of a cluster's network. @see #/components/schemas/NetworkType */
export type NetworkType = components["schemas"]["NetworkType"];
/** A decimal number that is zero or greater, carried as text (google.type.Decimal without a minus sign). @see #/components/schemas/NonNegativeDecimal */
export type NonNegativeDecimal = components["schemas"]["NonNegativeDecimal"];
/** A project, which owns clusters, machines, virtual machines, disks, images, networks and volumes. @see #/components/schemas/Project */
export type Project = components["schemas"]["Project"];
/** A search result whose resource is a project; `project` is present and no other typed object is. @see #/components/schemas/ProjectSearchResult */
export type ProjectSearchResult = components["schemas"]["ProjectSearchResult"];
/** Identifier of a resource as it appears in a request. @see #/components/schemas/ResourceId */
export type ResourceId = components["schemas"]["ResourceId"];
/** When the client may retry the request (google.rpc.RetryInfo). @see #/components/schemas/RetryInfo */
export type RetryInfo = components["schemas"]["RetryInfo"];
/** The resources that match a search, best match first. @see #/components/schemas/SearchResourcesResponse */
export type SearchResourcesResponse = components["schemas"]["SearchResourcesResponse"];
/** One resource that matches a search. @see #/components/schemas/SearchResult */
export type SearchResult = components["schemas"]["SearchResult"];
/** Fields that every search result has, whatever the type of its resource. @see #/components/schemas/SearchResultCommon */
export type SearchResultCommon = components["schemas"]["SearchResultCommon"];
/** Where the SSH keys installed on a cluster's machines come from. @see #/components/schemas/SshKeySource */
export type SshKeySource = components["schemas"]["SshKeySource"];
/** A detail of a type not described here; clients should ignore types they do not know. @see #/components/schemas/UnknownErrorDetail */
export type UnknownErrorDetail = components["schemas"]["UnknownErrorDetail"];
/** The fields of a cluster machine to change. @see #/components/schemas/UpdateClusterMachineRequest */
export type UpdateClusterMachineRequest = components["schemas"]["UpdateClusterMachineRequest"];
/** A virtual machine of a project. @see #/components/schemas/VirtualMachine */
export type VirtualMachine = components["schemas"]["VirtualMachine"];
/** A search result whose resource is a virtual machine; `virtualMachine` is present and no other typed object is. @see #/components/schemas/VirtualMachineSearchResult */
export type VirtualMachineSearchResult = components["schemas"]["VirtualMachineSearchResult"];
/** State of a virtual machine. @see #/components/schemas/VmState */
export type VmState = components["schemas"]["VmState"];
/** A network file system volume of a project. @see #/components/schemas/Volume */
export type Volume = components["schemas"]["Volume"];
/** A search result whose resource is a volume; `volume` is present and no other typed object is. @see #/components/schemas/VolumeSearchResult */
export type VolumeSearchResult = components["schemas"]["VolumeSearchResult"];
/** Lifecycle state of a volume. @see #/components/schemas/VolumeState */
export type VolumeState = components["schemas"]["VolumeState"];
