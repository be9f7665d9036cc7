/**
 * deploy/kubernetes as the container suites read it: the kustomization's files, their objects, and what a container's
 * arguments and variables say (the drain's flags, the preStop pause), the way the commands themselves read them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { variableOf } from "@compute-api/runtime/cli";
import type { IDeployment } from "kubernetes-models/apps/v1";
import type { IContainer, IService } from "kubernetes-models/v1";
import { parseAllDocuments, parse as parseYaml } from "yaml";

/** The folder `kubectl apply -k` is pointed at. */
export const manifestsDir = fileURLToPath(new URL("../../deploy/kubernetes/", import.meta.url));

/** The manifest kept out of the kustomization: it needs the Prometheus Operator's CRD. */
export const serviceMonitorFile = "servicemonitor.yaml";

/** The fields of a kustomization.yaml that the folder's uses. */
export interface Kustomization {
  apiVersion: string;
  kind: string;
  namespace?: string;
  resources: string[];
  [field: string]: unknown;
}

/** An object of a manifest, as written. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** One object and where it is written: the file and its place among the file's documents. */
export interface Manifest {
  file: string;
  index: number;
  object: KubernetesObject;
}

/** kustomization.yaml. */
export function kustomization(): Kustomization {
  return parseYaml(readFileSync(join(manifestsDir, "kustomization.yaml"), "utf8")) as Kustomization;
}

/** The YAML files of the folder, kustomization.yaml aside. */
export function manifestFiles(): string[] {
  return readdirSync(manifestsDir)
    .filter((name) => /\.ya?ml$/.test(name) && name !== "kustomization.yaml")
    .sort();
}

/** The objects of `file`, in order; a YAML error fails with the file's name. */
export function readManifests(file: string): Manifest[] {
  const documents = parseAllDocuments(readFileSync(join(manifestsDir, file), "utf8"));
  if (!Array.isArray(documents)) throw new Error(`${file}: not a YAML stream`);
  return documents.map((document, index) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    return { file, index, object: document.toJS() as KubernetesObject };
  });
}

/** Every object `kubectl apply -k` applies: those of the kustomization's resources, in its order. */
export function kustomizedManifests(): Manifest[] {
  return kustomization().resources.flatMap(readManifests);
}

/** The Deployments among `manifests`. */
export function deploymentsOf(manifests: readonly Manifest[]): IDeployment[] {
  return manifests.filter((m) => m.object.kind === "Deployment").map((m) => m.object as unknown as IDeployment);
}

/** The Services among `manifests`. */
export function servicesOf(manifests: readonly Manifest[]): IService[] {
  return manifests.filter((m) => m.object.kind === "Service").map((m) => m.object as unknown as IService);
}

/** The Deployment named `name`, which must be there. */
export function deploymentNamed(manifests: readonly Manifest[], name: string): IDeployment {
  const found = deploymentsOf(manifests).find((d) => d.metadata?.name === name);
  if (!found) throw new Error(`no Deployment ${name} in deploy/kubernetes`);
  return found;
}

/** The one container of `deployment`'s pods. */
export function containerOf(deployment: IDeployment): IContainer {
  const containers = deployment.spec?.template.spec?.containers ?? [];
  if (containers.length !== 1) throw new Error(`${deployment.metadata?.name}: ${containers.length} containers, not 1`);
  return containers[0] as IContainer;
}

/**
 * The value of a long flag in `container`'s arguments (`--name=value` or `--name value`), else of the flag's
 * variable for `command` (`COMPUTE_STUB_PORT` for compute-stub's `--port`) given as a plain value; undefined when
 * neither sets it. The flag wins, as in the commands.
 */
export function settingOf(container: IContainer, flag: string, command?: string): string | undefined {
  const args = container.args ?? [];
  for (const [i, arg] of args.entries()) {
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
    if (arg === flag) return args[i + 1];
  }
  if (command === undefined) return undefined;
  const variable = variableOf(command, flag);
  return container.env?.find((e) => e.name === variable && e.valueFrom === undefined)?.value;
}

/** A number of milliseconds `container` sets with `flag` or its variable for `command`; a missing or malformed one fails. */
export function millisecondsOf(container: IContainer, flag: string, command: string): number {
  const value = settingOf(container, flag, command);
  if (value === undefined || !/^\d+$/.test(value)) throw new Error(`${container.name}: ${flag} is ${value}`);
  return Number(value);
}

/** The seconds of `container`'s preStop sleep action (0 without one). */
export function preStopSleepSeconds(container: IContainer): number {
  return container.lifecycle?.preStop?.sleep?.seconds ?? 0;
}

/**
 * The idle timeout, in seconds, that gateway.yaml asks of the ingress controller's pooled connections to the gateways
 * (`upstream-keepalive-timeout … set it to N`): what a balancer in front of them is configured with.
 */
export function askedIngressKeepAliveSeconds(): number {
  const text = readFileSync(join(manifestsDir, "gateway.yaml"), "utf8");
  const asked = /upstream-keepalive-timeout[\s\S]*?set it to (\d+)/.exec(text)?.[1];
  if (asked === undefined) throw new Error("gateway.yaml does not say which upstream-keepalive-timeout to set");
  return Number(asked);
}
