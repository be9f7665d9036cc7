/**
 * A rolling update of the gateway containers behind a real nginx, as Kubernetes rolls deploy/kubernetes's gateway
 * Deployment: two gateway containers from the image `npm run images` builds, with the Deployment's own arguments,
 * variables, security context and limits, under steady GETs and PATCHes; each in turn is stopped by the container
 * runtime's own stop (`podman stop -t <grace less the preStop pause>`: SIGTERM, then SIGKILL when the time is up,
 * as the kubelet does) and replaced by a new container on its port. No request may fail, no PATCH may reach the
 * backend twice, and each container must exit 0, by its own drain, long before the kill.
 */
import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "@compute-api/test-support";
import { type Nginx, skipWithoutNginx, startNginx } from "@compute-api/test-support/nginx";
import { buildImages, podman, skipWithoutPodman } from "@compute-api/test-support/podman";
import { findProgram, podmanProgram } from "@compute-api/test-support/system";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageTag, imageTargets, podmanEnv } from "../../scripts/images.js";
import {
  balancer,
  failures,
  type LoggedStub,
  patchedTwice,
  startLoggedStub,
  steadyTraffic,
  untilReady,
} from "../production/support.js";
import {
  askedIngressKeepAliveSeconds,
  containerOf,
  deploymentNamed,
  kustomizedManifests,
  preStopSleepSeconds,
} from "./kubernetes-manifests.js";

const deployment = deploymentNamed(kustomizedManifests(), "compute-gateway");
const container = containerOf(deployment);
const pod = deployment.spec?.template.spec;
/** What the kubelet leaves the process after the preStop pause, before its SIGKILL: podman stop's timeout. */
const stopTimeoutSeconds = (pod?.terminationGracePeriodSeconds ?? 30) - preStopSleepSeconds(container);
const image = imageTargets.map(imageTag).find((tag) => tag === container.image) ?? "";

/** Containers this file started and has not removed, removed however the run ends. */
const running = new Set<string>();
process.on("exit", () => {
  const path = findProgram(podmanProgram);
  if (path && running.size > 0) spawnSync(path, ["rm", "-f", "-t", "0", ...running], { env: podmanEnv() });
});

/**
 * `podman run` of the gateway image as the Deployment's pod runs it: its arguments and plain variables, its
 * security context (read-only root, no capability, no privilege escalation, its user) and its limits; on a host
 * network, listening on 127.0.0.1:`port` in front of `upstream` (the flags win over the manifest's variables).
 */
async function runGateway(name: string, port: number, upstream: string): Promise<void> {
  const limits = container.resources?.limits ?? {};
  const security = pod?.securityContext;
  const env = (container.env ?? []).flatMap((e) => (e.value === undefined ? [] : ["--env", `${e.name}=${e.value}`]));
  running.add(name);
  await podman([
    "run",
    "--detach",
    "--name",
    name,
    "--read-only",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--user",
    `${security?.runAsUser}:${security?.runAsGroup}`,
    "--memory",
    String(limits.memory).replace(/i$/, "").toLowerCase(),
    "--cpus",
    String(limits.cpu),
    ...env,
    image,
    ...(container.args ?? []),
    "--upstream",
    upstream,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
  ]);
}

/** How a stopped container ended: its exit status and log, and how long its drain and podman's stop took. */
interface Stop {
  name: string;
  code: number;
  logs: string;
  /** From the drain's first log line, written on SIGTERM, to the exit time the runtime recorded. */
  drainMs: number;
  /** The wall time of `podman stop`, its own work (locks, the runtime's calls) included. */
  stopMs: number;
}

/** What `podman stop` of `name` left: read from the stopped container before it is removed. */
async function stopOf(name: string, stopMs: number): Promise<Stop> {
  const format = "{{.State.ExitCode}} {{.State.FinishedAt.UnixMilli}}";
  const [code, exited] = (await podman(["inspect", "--format", format, name])).stdout.trim().split(" ").map(Number);
  const { stdout, stderr } = await podman(["logs", name]);
  const logs = stdout + stderr;
  const draining = logs
    .split("\n")
    .map((line) => (line.startsWith("{") ? (JSON.parse(line) as { time?: number; msg?: string }) : {}))
    .find((line) => line.msg?.startsWith("compute-gateway draining"));
  return { name, code: code ?? -1, logs, drainMs: (exited ?? 0) - (draining?.time ?? 0), stopMs };
}

describe.skipIf(skipWithoutPodman() || skipWithoutNginx())(
  "a rolling update of gateway containers behind nginx",
  () => {
    let stub: LoggedStub;
    let nginx: Nginx;
    const ports: number[] = [];

    beforeAll(async () => {
      await buildImages();
      stub = await startLoggedStub();
      ports.push(await freePort(), await freePort());
      // nginx keeps idle upstream connections as long as gateway.yaml asks of the ingress controller in front.
      nginx = await startNginx((port) => balancer(port, ports, `${askedIngressKeepAliveSeconds()}s`));
    }, 20 * 60_000);

    afterAll(async () => {
      if (running.size > 0) await podman(["rm", "-f", "-t", "0", ...running], { allowFailure: true });
      running.clear();
      await nginx?.stop();
      await stub?.close();
    }, 180_000);

    it("under steady GETs and PATCHes, no request fails, no PATCH is applied twice, each container exits 0 by its drain", async () => {
      expect(image, `the Deployment's image ${container.image} is one npm run images builds`).not.toBe("");
      let serial = 0;
      const nameOf = () => `compute-api-rolling-${process.pid}-${++serial}`;
      const slots: string[] = [];
      for (const port of ports) {
        const name = nameOf();
        await runGateway(name, port, stub.url);
        slots.push(name);
      }
      for (const port of ports) await untilReady(`http://127.0.0.1:${port}`);
      const traffic = steadyTraffic(nginx.url, 8);
      const stops: Stop[] = [];
      try {
        await sleep(1000);
        // Two rounds: every container is replaced once, and so is every replacement.
        for (let round = 0; round < 2; round++) {
          for (const [i, port] of ports.entries()) {
            const old = slots[i] ?? "";
            const signalled = Date.now();
            await podman(["stop", "-t", String(stopTimeoutSeconds), old], {
              timeoutMs: (stopTimeoutSeconds + 30) * 1000,
            });
            stops.push(await stopOf(old, Date.now() - signalled));
            await podman(["rm", old]);
            running.delete(old);
            const next = nameOf();
            await runGateway(next, port, stub.url);
            slots[i] = next;
            await untilReady(`http://127.0.0.1:${port}`);
            await sleep(1000);
          }
        }
      } finally {
        const outcomes = await traffic.stop();
        const failed = failures(outcomes);
        const count = (method: string) => outcomes.filter((o) => o.method === method).length;
        const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
        console.log(
          `rolling update of ${stops.length} gateway containers: ${outcomes.length} requests sent (${count("GET")} GET, ` +
            `${count("PATCH")} PATCH), ${Object.values(failed).reduce((a, b) => a + b, 0)} failed; SIGTERM to exit ` +
            `(the drain's first log line to the runtime's exit time): ${stops.map((s) => seconds(s.drainMs)).join(", ")}; ` +
            `podman stop -t ${stopTimeoutSeconds} took ${stops.map((s) => seconds(s.stopMs)).join(", ")}`,
        );
        const errors = nginx
          .errorLog()
          .split("\n")
          .filter((l) => /\[error\]/.test(l) && !/Connection refused/.test(l));
        expect(failed, errors.slice(0, 5).join("\n")).toEqual({});
        expect(outcomes.length).toBeGreaterThan(100);
        expect(patchedTwice(stub)).toEqual([]);
      }
      expect(stops).toHaveLength(4);
      for (const stop of stops) {
        // 0: it exited by itself, before podman's SIGKILL (which would make it 137).
        expect(stop.code, stop.logs).toBe(0);
        expect(stop.logs).toMatch(/compute-gateway stopped: no connection left/);
        expect(stop.logs).not.toMatch(/request cut/);
        // Its drain ended once its connections were closed: each busy one after its answer, each idle one by nginx
        // (whose idle time is below --shutdown-grace); never by the gateway's grace (which logs what it closes), nor
        // by podman's kill (the exit status above).
        expect(stop.logs).not.toMatch(/shutdown grace over/);
      }
    }, 540_000);
  },
);
