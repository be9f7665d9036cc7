/**
 * deploy/kubernetes as a cluster takes it: every object of the kustomization against the Kubernetes API's schemas
 * (kubernetes-models, plus no field the API does not declare, which a cluster would drop or refuse), the numbers and
 * names a user would be bitten by (the timing chain, ports, labels, images, the security context), the commands
 * started with the manifests' own arguments answering their probes; then, with podman, `podman kube play` running
 * the three Deployments on the images built here and `podman kube down` stopping them.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { defaults as gatewayDefaults } from "@compute-api/gateway";
import { variableOf } from "@compute-api/runtime/cli";
import { freePort } from "@compute-api/test-support";
import { imageTag, imageTargets } from "@compute-api/test-support/images";
import { buildImages, podman, skipWithoutPodman } from "@compute-api/test-support/podman";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import type { IDeployment } from "kubernetes-models/apps/v1";
import type { IContainer, IProbe } from "kubernetes-models/v1";
import { Client } from "pg";
import ts from "typescript";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type CommandProcess, killCommandProcesses, startCommandProcess } from "../production/support.js";
import {
  askedIngressKeepAliveSeconds,
  containerOf,
  deploymentNamed,
  deploymentsOf,
  type KubernetesObject,
  kustomization,
  kustomizedManifests,
  type Manifest,
  manifestFiles,
  manifestsDir,
  millisecondsOf,
  preStopSleepSeconds,
  readManifests,
  serviceMonitorFile,
  servicesOf,
  settingOf,
} from "./kubernetes-manifests.js";

const manifests = kustomizedManifests();
const deployments = deploymentsOf(manifests);
const require = createRequire(import.meta.url);

/** A kubernetes-models class: built from an object, it validates it against the API's JSON schema (throws). */
type Model = new (data: unknown) => { validate(): void };

/** The class of `apiVersion` and `kind`, from kubernetes-models (`kubernetes-models/apps/v1/Deployment`). */
function modelOf(object: KubernetesObject): Model {
  const module = require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<string, Model>;
  const model = module[object.kind];
  if (!model) throw new Error(`kubernetes-models has no ${object.apiVersion} ${object.kind}`);
  return model;
}

/** The fields an interface of kubernetes-models' declarations names, with their types and the file's imports. */
interface Declared {
  file: string;
  fields: Map<string, ts.TypeNode>;
  imports: Map<string, string>;
}

const declarations = new Map<string, Declared | undefined>();

/** The interface declared in `file` (a .d.ts of kubernetes-models); undefined for a type alias (Quantity, Time…). */
function declared(file: string): Declared | undefined {
  if (declarations.has(file)) return declarations.get(file);
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const imports = new Map<string, string>();
  let result: Declared | undefined;
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) imports.set(element.name.text, statement.moduleSpecifier.text);
    }
    if (ts.isInterfaceDeclaration(statement) && result === undefined) {
      const fields = new Map<string, ts.TypeNode>();
      for (const member of statement.members)
        if (
          ts.isPropertySignature(member) &&
          member.type &&
          (ts.isStringLiteral(member.name) || ts.isIdentifier(member.name))
        )
          fields.set(member.name.text, member.type);
      result = { file, fields, imports };
    }
  }
  declarations.set(file, result);
  return result;
}

/** The declaration file of `specifier` as imported by `from`. */
function declarationFile(specifier: string, from: string): string {
  return createRequire(from).resolve(specifier).replace(/\.js$/, ".d.ts");
}

/**
 * The paths of the fields of `value` that its type does not declare, walking the types as the declarations name
 * them. The API's schemas let unknown fields through, so a misspelt field would pass validate() and then be dropped
 * (or refused, with kubectl's strict field validation) by the cluster.
 */
function undeclaredFields(value: unknown, type: ts.TypeNode, context: Declared, path: string): string[] {
  if (ts.isArrayTypeNode(type))
    return Array.isArray(value)
      ? value.flatMap((item, i) => undeclaredFields(item, type.elementType, context, `${path}[${i}]`))
      : [];
  if (ts.isTypeLiteralNode(type)) {
    // A map ({ [key: string]: T }): any key, each value a T.
    const index = type.members.find(ts.isIndexSignatureDeclaration);
    if (!index || !isObject(value)) return [];
    return Object.entries(value).flatMap(([key, item]) =>
      undeclaredFields(item, index.type, context, `${path}.${key}`),
    );
  }
  if (!ts.isTypeReferenceNode(type) || !ts.isIdentifier(type.typeName)) return [];
  const name = type.typeName.text;
  const element = type.typeArguments?.[0];
  if (name === "Array" && element)
    return Array.isArray(value)
      ? value.flatMap((item, i) => undeclaredFields(item, element, context, `${path}[${i}]`))
      : [];
  const specifier = context.imports.get(name);
  const target = specifier === undefined ? undefined : declared(declarationFile(specifier, context.file));
  return target && isObject(value) ? undeclaredIn(value, target, path) : [];
}

function undeclaredIn(value: Record<string, unknown>, type: Declared, path: string): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    const field = type.fields.get(key);
    return field === undefined ? [`${path}.${key}`] : undeclaredFields(item, field, type, `${path}.${key}`);
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fields of `object` its kind does not declare, as paths (`spec.template.spec.containers[0].httpGett`). */
function undeclaredFieldsOf(object: KubernetesObject): string[] {
  const file = declarationFile(`kubernetes-models/${object.apiVersion}/${object.kind}`, fileURLToPath(import.meta.url));
  const type = declared(file);
  if (!type) throw new Error(`no interface in ${file}`);
  return undeclaredIn(object, type, object.kind);
}

/** The container port `port` names (a number, or the name of one of `container`'s ports). */
function containerPort(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === "number") return container.ports?.some((p) => p.containerPort === port) ? port : undefined;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** The probes `container` has, by kind. */
function probesOf(container: IContainer): [string, IProbe][] {
  const probes: [string, IProbe | undefined][] = [
    ["startupProbe", container.startupProbe],
    ["readinessProbe", container.readinessProbe],
    ["livenessProbe", container.livenessProbe],
  ];
  return probes.filter((entry): entry is [string, IProbe] => entry[1] !== undefined);
}

/** Whether `labels` hold every pair of `selector`. */
function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return selector !== undefined && Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** A quantity in its base unit (cores, bytes) for comparing a request with its limit. */
function quantity(value: string | number | undefined): number {
  if (value === undefined) return Number.NaN;
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$/.exec(String(value));
  if (!match) return Number.NaN;
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[match[2] ?? ""] ?? 1;
  return Number(match[1]) * scale;
}

/**
 * The numeric USER that `target`'s stage of the images' Containerfile runs as (`USER 1000:1000`), its own or, failing
 * that, the stage it is built FROM's.
 */
function imageUser(target: string): { uid: number; gid: number } {
  const containerfile = readFileSync(join(manifestsDir, "../images/Containerfile"), "utf8");
  const stages = new Map<string, { base: string; body: string }>();
  for (const stage of containerfile.split(/^FROM /m).slice(1)) {
    const [, base, stageName] = /^(\S+) AS (\S+)/.exec(stage) ?? [];
    if (base && stageName) stages.set(stageName, { base, body: stage });
  }
  for (let stage = stages.get(target); stage; stage = stages.get(stage.base)) {
    const users = [...stage.body.matchAll(/^USER (\d+):(\d+)\s*$/gm)];
    const user = users[users.length - 1];
    if (user) return { uid: Number(user[1]), gid: Number(user[2]) };
  }
  throw new Error(`no numeric USER in the Containerfile's ${target} stage or those it is built from`);
}

const name = (d: IDeployment) => d.metadata?.name ?? "?";
const gateway = deploymentNamed(manifests, "compute-gateway");

describe("deploy/kubernetes, as kubectl apply -k takes it", () => {
  it("the kustomization lists every manifest of the folder but the ServiceMonitor, in the namespace it creates", () => {
    const k = kustomization();
    expect([k.apiVersion, k.kind]).toEqual(["kustomize.config.k8s.io/v1beta1", "Kustomization"]);
    // Only fields kustomize reads: a misspelt one is ignored (with a warning at most), and its intent lost.
    expect(
      Object.keys(k).filter((f) => !["apiVersion", "kind", "namespace", "labels", "resources"].includes(f)),
    ).toEqual([]);
    expect([...k.resources].sort()).toEqual(manifestFiles().filter((f) => f !== serviceMonitorFile));
    const namespaces = manifests.filter((m) => m.object.kind === "Namespace").map((m) => m.object.metadata.name);
    expect(namespaces).toEqual([k.namespace]);
    // Names are unique per kind, as the API requires.
    const keys = manifests.map((m) => `${m.object.kind}/${m.object.metadata.name}`);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });

  it.each(manifests.map((m) => [m.file, m.object.kind, m.object.metadata.name, m] as const))(
    "%s: %s %s is valid against the Kubernetes API's schema, with no field the API does not declare",
    (_file, _kind, _name, manifest: Manifest) => {
      expect(() => new (modelOf(manifest.object))(manifest.object).validate()).not.toThrow();
      expect(undeclaredFieldsOf(manifest.object)).toEqual([]);
    },
  );

  it("the check of undeclared fields finds a misspelt one, and validate() a wrong type", () => {
    const object = structuredClone(gateway) as unknown as KubernetesObject & { spec: { template: { spec: object } } };
    Object.assign(object.spec.template.spec, { terminationGracePeriodSecond: 45 });
    expect(undeclaredFieldsOf(object)).toEqual(["Deployment.spec.template.spec.terminationGracePeriodSecond"]);
    Object.assign(object.spec.template.spec, { terminationGracePeriodSeconds: "45" });
    expect(() => new (modelOf(object))(object).validate()).toThrow(/terminationGracePeriodSeconds must be integer/);
  });

  it("the ServiceMonitor (outside the kustomization) scrapes /metrics on the gateway Service's port", () => {
    const [monitor, ...more] = readManifests(serviceMonitorFile).map((m) => m.object);
    expect(more).toEqual([]);
    expect([monitor?.apiVersion, monitor?.kind]).toEqual(["monitoring.coreos.com/v1", "ServiceMonitor"]);
    const spec = monitor?.spec as { selector: { matchLabels: Record<string, string> }; endpoints: object[] };
    const service = servicesOf(manifests).find((s) => selects(spec.selector.matchLabels, s.metadata?.labels));
    expect(service?.spec?.selector).toEqual(gateway.spec?.selector.matchLabels);
    expect(spec.endpoints).toEqual([
      { port: service?.spec?.ports?.[0]?.name, path: "/metrics", interval: expect.any(String) },
    ]);
  });

  describe.each(deployments.map((d) => [name(d), d] as const))("%s", (command, deployment: IDeployment) => {
    const container = containerOf(deployment);
    const pod = deployment.spec?.template.spec;

    it("its grace period exceeds the preStop pause plus --shutdown-timeout, from its own arguments", () => {
      const pause = preStopSleepSeconds(container);
      const timeout = millisecondsOf(container, "--shutdown-timeout", command);
      expect(pause).toBeGreaterThanOrEqual(1);
      expect(pod?.terminationGracePeriodSeconds).toBeGreaterThan(pause + timeout / 1000);
      // Idle connections are closed before in-flight requests are cut.
      expect(millisecondsOf(container, "--shutdown-grace", command)).toBeLessThan(timeout);
    });

    it("its probes, Service and Prometheus port name the port it listens on (--port), selecting its pods", () => {
      const port = Number(settingOf(container, "--port", command));
      expect(container.ports?.map((p) => p.containerPort)).toEqual([port]);
      expect(settingOf(container, "--host", command)).toBe("0.0.0.0");
      for (const [kind, probe] of probesOf(container))
        expect(containerPort(container, probe.httpGet?.port), kind).toBe(port);
      expect(container.readinessProbe?.httpGet?.path).toBe("/readyz");
      expect(container.livenessProbe?.httpGet?.path).toBe("/healthz");
      const labels = deployment.spec?.template.metadata?.labels;
      expect(selects(deployment.spec?.selector.matchLabels, labels)).toBe(true);
      const services = servicesOf(manifests).filter((s) => selects(s.spec?.selector, labels));
      expect(services.map((s) => s.metadata?.name)).toEqual([name(deployment)]);
      for (const p of services[0]?.spec?.ports ?? []) expect(containerPort(container, p.targetPort)).toBe(port);
      const annotations = deployment.spec?.template.metadata?.annotations;
      if (annotations?.["prometheus.io/scrape"] === "true")
        expect(Number(annotations["prometheus.io/port"])).toBe(port);
    });

    it("its image is one `npm run images` builds, and it runs as the image's own non-root user", () => {
      const tags = imageTargets.map(imageTag);
      expect(tags).toContain(container.image);
      const target = imageTargets.find((t) => imageTag(t) === container.image)?.target ?? "";
      const { uid, gid } = imageUser(target);
      expect(pod?.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: gid,
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      // The image's working directory, the one place a read-only root leaves writable.
      const tmp = container.volumeMounts?.find((m) => m.mountPath === "/tmp");
      expect(pod?.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
      expect(pod?.automountServiceAccountToken).toBe(false);
    });

    it("its resources have requests within their limits, and each Secret it reads is in the kustomization", () => {
      const { requests, limits } = container.resources ?? {};
      for (const resource of ["cpu", "memory"]) {
        const request = quantity(requests?.[resource]);
        expect(request, resource).toBeGreaterThan(0);
        expect(request, resource).toBeLessThanOrEqual(quantity(limits?.[resource]));
      }
      for (const env of container.env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (!ref || ref.optional) continue;
        const secret = manifests.find((m) => m.object.kind === "Secret" && m.object.metadata.name === ref.name)?.object;
        expect(Object.keys((secret?.stringData ?? secret?.data ?? {}) as object), env.name).toContain(ref.key);
      }
    });
  });

  it("the gateway runs 2+ replicas under a PodDisruptionBudget that keeps one, in front of a Service of the kustomization", () => {
    expect(gateway.spec?.replicas).toBeGreaterThanOrEqual(2);
    const budgets = manifests.filter((m) => m.object.kind === "PodDisruptionBudget").map((m) => m.object);
    const spec = budgets[0]?.spec as { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    expect(selects(spec.selector.matchLabels, gateway.spec?.template.metadata?.labels)).toBe(true);
    expect(spec.maxUnavailable).toBeLessThan(gateway.spec?.replicas ?? 0);
    const container = containerOf(gateway);
    const upstream = new URL(settingOf(container, "--upstream", "compute-gateway") ?? "");
    const backend = servicesOf(manifests).find((s) => s.metadata?.name === upstream.hostname);
    expect(backend?.spec?.ports?.map((p) => p.port)).toContain(Number(upstream.port));
    // The gateway closes an idle connection to its backend before the backend's drain would.
    const backendDeployment = deploymentNamed(manifests, upstream.hostname);
    const keepAlive = Number(
      settingOf(container, "--upstream-keep-alive-timeout", "compute-gateway") ??
        gatewayDefaults.upstreamKeepAliveTimeoutMs,
    );
    expect(keepAlive).toBeLessThan(
      millisecondsOf(containerOf(backendDeployment), "--shutdown-grace", name(backendDeployment)),
    );
    // The idle timeout the manifest asks of the ingress controller in front is below the gateway's grace.
    expect(askedIngressKeepAliveSeconds() * 1000).toBeLessThan(
      millisecondsOf(container, "--shutdown-grace", "compute-gateway"),
    );
  });

  describe("the commands, started with the manifests' arguments and variables", () => {
    const started: CommandProcess[] = [];
    afterAll(() => killCommandProcesses());

    it("accept them, and answer 200 on every probe's path (the gateway's /readyz through the stub)", async () => {
      const stubPort = await freePort();
      const gatewayPort = await freePort();
      const local = (deployment: IDeployment, port: number, more: Record<string, string> = {}) => {
        const container = containerOf(deployment);
        const env = Object.fromEntries(
          (container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]),
        );
        const listen = {
          [variableOf(name(deployment), "--host")]: "127.0.0.1",
          [variableOf(name(deployment), "--port")]: String(port),
        };
        return { args: container.args ?? [], env: { ...env, ...listen, ...more } };
      };
      const stub = local(deploymentNamed(manifests, "compute-stub"), stubPort);
      started.push(await startCommandProcess("compute-stub", stub.args, 1, stub.env));
      const front = local(gateway, gatewayPort, { COMPUTE_GATEWAY_UPSTREAM: `http://127.0.0.1:${stubPort}` });
      started.push(await startCommandProcess("compute-gateway", front.args, 1, front.env));
      for (const [deployment, port] of [
        [deploymentNamed(manifests, "compute-stub"), stubPort],
        [gateway, gatewayPort],
      ] as const) {
        for (const [kind, probe] of probesOf(containerOf(deployment))) {
          const res = await request(`http://127.0.0.1:${port}${probe.httpGet?.path}`, { reset: true });
          await res.body.dump();
          expect(res.statusCode, `${name(deployment)} ${kind}`).toBe(200);
        }
      }
      for (const command of started) {
        command.child.kill("SIGTERM");
        expect(await command.exited, command.output()).toBe(0);
      }
    }, 180_000);
  });
});

/** Where a Deployment runs in the kube play variant: its port on 127.0.0.1 and the variables that differ. */
interface Placement {
  port: number;
  env?: Record<string, string>;
}

/**
 * The kustomization's objects as `podman kube play` (4.3) can run them on this machine, changing only what a host
 * network and podman need: host networking, one replica each (two would share a port), free 127.0.0.1 ports (the
 * --port and --host variables), names unique to this run, the backend's address, and the Secrets given to podman under
 * names of this run (podman 4.3 stores a Secret document in a form its own secretKeyRef cannot read back). The
 * container ports go and the probes name their port by number: podman 4.3 publishes every container port, which
 * host networking refuses.
 */
function playVariant(run: string, placements: Record<string, Placement>, secrets: Record<string, string>): string {
  const objects = manifests.filter((m) => m.object.kind !== "Secret").map((m) => structuredClone(m.object));
  for (const object of objects) {
    object.metadata.name = `${object.metadata.name}-${run}`;
    if (object.kind !== "Deployment") continue;
    const deployment = object as unknown as IDeployment;
    const command = name(deployment).slice(0, -run.length - 1);
    const placement = placements[command];
    const pod = deployment.spec?.template.spec;
    if (!deployment.spec || !pod || !placement) throw new Error(`no placement for ${name(deployment)}`);
    deployment.spec.replicas = 1;
    pod.hostNetwork = true;
    for (const volume of pod.volumes ?? []) volume.name = `${volume.name}-${run}`;
    const container = containerOf(deployment);
    for (const mount of container.volumeMounts ?? []) mount.name = `${mount.name}-${run}`;
    for (const [, probe] of probesOf(container))
      if (probe.httpGet) probe.httpGet.port = containerPort(container, probe.httpGet.port) ?? probe.httpGet.port;
    delete container.ports;
    const env: Record<string, string> = {
      ...placement.env,
      [variableOf(command, "--host")]: "127.0.0.1",
      [variableOf(command, "--port")]: String(placement.port),
    };
    for (const variable of container.env ?? []) {
      const value = env[variable.name];
      if (value !== undefined) variable.value = value;
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref?.name) ref.name = secrets[ref.name] ?? ref.name;
    }
  }
  return objects.map((object) => stringify(object)).join("---\n");
}

/** GETs `url` on a connection of its own (closed after, so that no idle one holds a drain); the status or the error. */
async function probe(url: string): Promise<number | string> {
  try {
    const res = await request(url, { reset: true, headersTimeout: 5_000, bodyTimeout: 5_000 });
    await res.body.dump();
    return res.statusCode;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Sends `path`'s probe as the kubelet does, every 250 ms until it answers 200 or `ms` have passed; the last answer. */
async function untilProbed(url: string, ms: number): Promise<number | string> {
  let last: number | string = "never tried";
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(250)) {
    last = await probe(url);
    if (last === 200) break;
  }
  return last;
}

describe.skipIf(skipWithoutPodman() || skipWithoutPostgres())("deploy/kubernetes under podman kube play", () => {
  const run = `kp${process.pid}`;
  const stubKey = "cak_kube-play-alice-0001";
  const secrets = {
    "compute-postgres-database": `compute-postgres-database-${run}`,
    "compute-stub-api-key": `compute-stub-api-key-${run}`,
  };
  const variantFile = join(tmpdir(), `compute-api-kube-play-${run}.yaml`);
  const placements: Record<string, Placement> = {};
  let postgres: Postgres | undefined;
  let played = false;

  beforeAll(async () => {
    await buildImages();
    postgres = await startPostgres();
    for (const deployment of deployments) placements[name(deployment)] = { port: await freePort() };
    placements["compute-gateway"] = {
      port: placements["compute-gateway"]?.port ?? 0,
      env: { COMPUTE_GATEWAY_UPSTREAM: `http://127.0.0.1:${placements["compute-stub"]?.port}` },
    };
    // A podman secret holds a Kubernetes Secret's data as JSON, each value in base64 (what kube play reads); given
    // in a file, as podman 4.3 takes `-` only from a FIFO, not from the socket Node's spawn pipes are.
    for (const [secret, data] of [
      [secrets["compute-postgres-database"], { COMPUTE_POSTGRES_DATABASE_URL: postgres.url }],
      [secrets["compute-stub-api-key"], { COMPUTE_API_KEY: stubKey }],
    ] as const) {
      const file = join(tmpdir(), `${secret}.json`);
      const encoded = Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]);
      writeFileSync(file, JSON.stringify(Object.fromEntries(encoded)), { mode: 0o600 });
      try {
        await podman(["secret", "create", secret, file]);
      } finally {
        rmSync(file, { force: true });
      }
    }
    writeFileSync(variantFile, playVariant(run, placements, secrets));
    await podman(["kube", "play", variantFile], { timeoutMs: 120_000 });
    played = true;
  }, 20 * 60_000);

  afterAll(async () => {
    if (played) await podman(["kube", "down", variantFile], { allowFailure: true, timeoutMs: 60_000 });
    for (const secret of Object.values(secrets)) await podman(["secret", "rm", secret], { allowFailure: true });
    rmSync(variantFile, { force: true });
    await postgres?.close();
  }, 360_000);

  const containerName = (deployment: IDeployment) => `${name(deployment)}-${run}-pod-0-${containerOf(deployment).name}`;

  it.each(deployments.map((d) => [name(d), d] as const))(
    "%s runs as its manifest says: probes answered, non-root, read-only, no capability",
    async (_name, deployment: IDeployment) => {
      const container = containerOf(deployment);
      const base = `http://127.0.0.1:${placements[name(deployment)]?.port}`;
      // Readiness is probed until it passes (the gateway's waits for its backend's container to start too); then
      // the liveness probe must pass at once, as the kubelet would restart a container whose liveness failed.
      for (const [kind, p] of probesOf(container))
        expect(await untilProbed(`${base}${p.httpGet?.path}`, kind === "livenessProbe" ? 5_000 : 120_000), kind).toBe(
          200,
        );
      const [inspected] = JSON.parse((await podman(["inspect", containerName(deployment)])).stdout) as {
        State: { Running: boolean; Pid: number };
        Config: { User: string; Healthcheck?: { Test: string[] } };
        HostConfig: { ReadonlyRootfs: boolean; SecurityOpt: string[] };
        EffectiveCaps: string[] | null;
      }[];
      expect(inspected?.State.Running).toBe(true);
      // podman took the liveness probe as its healthcheck (which it runs with curl inside the container).
      expect(inspected?.Config.Healthcheck?.Test.join(" ")).toContain(`${container.livenessProbe?.httpGet?.path}`);
      expect(inspected?.HostConfig.ReadonlyRootfs).toBe(true);
      expect(inspected?.HostConfig.SecurityOpt).toContain("no-new-privileges");
      expect(inspected?.EffectiveCaps ?? []).toEqual([]);
      const status = readFileSync(`/proc/${inspected?.State.Pid}/status`, "utf8");
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(
        String(deployment.spec?.template.spec?.securityContext?.runAsUser),
      );
    },
    540_000,
  );

  it("the gateway serves the stub's data with the key from its Secret; the Postgres example serves from PostgreSQL", async () => {
    const gatewayUrl = `http://127.0.0.1:${placements["compute-gateway"]?.port}`;
    const headers = { authorization: `Bearer ${stubKey}`, "content-type": "application/json" };
    const search = await request(`${gatewayUrl}/v1/resources/search?query=alpha`, { headers, reset: true });
    expect(search.statusCode).toBe(200);
    expect(((await search.body.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const patch = await request(`${gatewayUrl}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ priceHr: { value: "2.5" } }),
      reset: true,
    });
    expect(patch.statusCode).toBe(200);
    expect(((await patch.body.json()) as { priceHr?: { value: string } }).priceHr).toEqual({ value: "2.5" });
    // The Postgres example printed a key for alice, the database having none: it serves from the real PostgreSQL.
    const postgresExample = deploymentNamed(manifests, "compute-postgres");
    const logs = await podman(["logs", containerName(postgresExample)]);
    const key = /^\s+(cak_\S+)$/m.exec(logs.stdout + logs.stderr)?.[1];
    expect(key, logs.stdout + logs.stderr).toBeDefined();
    const answer = await request(
      `http://127.0.0.1:${placements["compute-postgres"]?.port}/v1/resources/search?query=alpha`,
      {
        headers: { authorization: `Bearer ${key}` },
        reset: true,
      },
    );
    expect(answer.statusCode).toBe(200);
    expect(((await answer.body.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    // It is PostgreSQL's data: the key printed is the one row of api_keys there.
    const client = new Client({ connectionString: postgres?.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM api_keys");
      expect(rows[0]?.n).toBe("1");
    } finally {
      await client.end();
    }
  }, 180_000);

  it("stopped as a kubelet stops a pod (SIGTERM, then the grace period), each drains and exits 0; kube down removes them", async () => {
    const pods = deployments.map((d) => `${name(d)}-${run}-pod-0`);
    // podman 4.3's `kube down` kills a pod's containers at once (exit 137, SIGKILL's, even for one that would end on
    // SIGTERM), so the pods are stopped first as the kubelet would: SIGTERM, then SIGKILL only after the manifests'
    // terminationGracePeriodSeconds. A container that drained exits 0, one still running at the kill 137: the exit
    // status, not the time the stop took, tells them apart on a busy machine.
    const grace = Math.max(...deployments.map((d) => d.spec?.template.spec?.terminationGracePeriodSeconds ?? 30));
    await podman(["pod", "stop", "--time", String(grace), ...pods], { timeoutMs: (grace + 60) * 1000 });
    for (const deployment of deployments) {
      const [inspected] = JSON.parse((await podman(["inspect", containerName(deployment)])).stdout) as {
        State: { ExitCode: number };
      }[];
      const logs = await podman(["logs", containerName(deployment)]);
      expect(inspected?.State.ExitCode, `${containerName(deployment)}: ${logs.stdout}${logs.stderr}`).toBe(0);
    }
    await podman(["kube", "down", variantFile], { timeoutMs: 60_000 });
    played = false;
    for (const pod of pods)
      expect((await podman(["pod", "exists", pod], { allowFailure: true })).code, pod).not.toBe(0);
    for (const { port } of Object.values(placements))
      expect(await probe(`http://127.0.0.1:${port}/healthz`)).toBe("ECONNREFUSED");
  }, 270_000);
});
