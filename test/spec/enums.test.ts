/** Every enum of the spec has exactly the value set of the public API this interface comes from. */
import { describe, expect, it } from "vitest";
import { schema, spec } from "../support/spec.js";

const expected: Record<string, string[]> = {
  MachinePowerState: ["MACHINE_POWER_STATE_UNSPECIFIED", "ON", "OFF", "POWERING_ON", "POWERING_OFF", "REBOOTING"],
  ClusterMachineState: ["STATE_UNSPECIFIED", "CREATING", "ACTIVE", "DELETING", "FAILED"],
  CommitmentTerm: [
    "COMMITMENT_TERM_NONE",
    "COMMITMENT_TERM_1_MONTH",
    "COMMITMENT_TERM_3_MONTHS",
    "COMMITMENT_TERM_6_MONTHS",
    "COMMITMENT_TERM_12_MONTHS",
    "COMMITMENT_TERM_24_MONTHS",
    "COMMITMENT_TERM_36_MONTHS",
    "COMMITMENT_TERM_60_MONTHS",
  ],
  NetworkType: ["NETWORK_TYPE_UNSPECIFIED", "ETHERNET", "INFINIBAND"],
  SshKeySource: ["SSH_KEY_SOURCE_UNKNOWN", "SSH_KEY_SOURCE_PROJECT", "SSH_KEY_SOURCE_USER", "SSH_KEY_SOURCE_NONE"],
  ClusterState: ["STATE_UNSPECIFIED", "CREATING", "ACTIVE", "UPDATING", "DELETING", "FAILED"],
  MachineState: ["STATE_UNSPECIFIED", "CREATING", "ACTIVE", "DEPLOYING", "DELETING", "FAILED", "UPDATING"],
  NetworkState: [
    "STATE_UNKNOWN",
    "ACTIVE",
    "CREATING",
    "DELETED",
    "DELETING",
    "FAILED",
    "STARTING",
    "STOPPED",
    "STOPPING",
    "UPDATING",
  ],
  VmState: [
    "CLONING",
    "CREATING_SNAPSHOT",
    "DELETED",
    "DELETING",
    "DELETING_SNAPSHOT",
    "FAILED",
    "HOTPLUGGING",
    "MIGRATING",
    "RECREATING",
    "REVERTING_SNAPSHOT",
    "RESIZING",
    "RESIZING_DISK",
    "ACTIVE",
    "STARTING",
    "STOPPED",
    "STOPPING",
    "SUSPENDED",
    "SUSPENDING",
    "UNKNOWN",
    "PENDING",
  ],
  DiskState: ["UNKNOWN", "ATTACHED", "CLONING", "CREATING", "DELETING", "DISABLED", "FAILED", "READY", "UPDATING"],
  DiskType: ["DISK_TYPE_UNKNOWN", "DISK_TYPE_BOOT", "DISK_TYPE_STORAGE"],
  VolumeState: ["VOLUME_STATE_UNSPECIFIED", "CREATING", "ACTIVE", "UPDATING", "DELETING", "FAILED"],
};

/** Where each enum is used, as `Schema.property`, so a swapped reference is caught too. */
const usedBy: Record<string, string[]> = {
  MachinePowerState: ["ClusterMachine.powerState", "Machine.powerState", "UpdateClusterMachineRequest.powerState"],
  ClusterMachineState: ["ClusterMachine.state", "UpdateClusterMachineRequest.state"],
  CommitmentTerm: ["Cluster.commitmentTerm", "Volume.commitmentTerm"],
  NetworkType: ["Cluster.networkType"],
  SshKeySource: ["Cluster.sshKeySource"],
  ClusterState: ["Cluster.state"],
  MachineState: ["Machine.state"],
  NetworkState: ["Network.state"],
  VmState: ["Network.vmState", "VirtualMachine.state"],
  DiskState: ["Disk.diskState"],
  DiskType: ["Disk.diskType"],
  VolumeState: ["Volume.state"],
};

describe("enums", () => {
  it("the spec has no enum schema that this test does not know", () => {
    const enums = Object.entries(spec.components.schemas as Record<string, { enum?: unknown }>)
      .filter(([, s]) => Array.isArray(s.enum))
      .map(([name]) => name);
    expect(enums.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))("%s has exactly its value set, in order", (name, values) => {
    expect(schema(name).type).toBe("string");
    expect(schema(name).enum).toEqual(values);
  });

  it.each(Object.entries(usedBy))("%s is the type of %j", (name, uses) => {
    for (const use of uses) {
      const [owner, prop] = use.split(".") as [string, string];
      const p = schema(owner).properties?.[prop] as { $ref?: string };
      expect(p.$ref, use).toBe(`#/components/schemas/${name}`);
    }
  });
});
