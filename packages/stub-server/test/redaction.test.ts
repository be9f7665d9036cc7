/**
 * What the journal and the log never keep, however it is sent: a key written into a path in any spelling
 * (percent-encoded, upper case), a `Proxy-Authorization` value, and the admin token sent where no token belongs (a
 * query, a header, a body). The key forms of the query, the headers and the body, and `Authorization`, are
 * admin.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { json, stubPerTest } from "./support/stub.js";

const stub = stubPerTest();
const adminToken = "admin-TOKENSECRET-0123456789";

/** The journal as text, read with the admin token. */
async function journalText(url: string): Promise<string> {
  const answer = await fetch(`${url}/__stub/requests`, { headers: { authorization: `Bearer ${adminToken}` } });
  expect(answer.status).toBe(200);
  return answer.text();
}

describe("a key written into a path", () => {
  it.each([
    ["as it is", "cak_"],
    ["with its _ percent-encoded", "cak%5F"],
    ["with its _ percent-encoded in lower case", "cak%5f"],
    ["in upper case", "CAK_"],
    ["with its prefix percent-encoded", "%63%61%6B%5F"],
  ])("%s is redacted in the journal and the log", async (_name, prefix) => {
    const s = await stub({ admin: { token: adminToken } });
    const path = `/v1/projects/${prefix}PATHSECRET-abc%2Dxyz/cluster-machines/cm-1`;
    await s.call(path, json("PATCH", { powerState: "OFF" }));
    const journal = await journalText(s.url);
    expect(journal).toContain("/v1/projects/[redacted]");
    expect(journal).not.toContain("PATHSECRET");
    expect(s.logs.join("\n")).toContain("/v1/projects/[redacted]");
    expect(s.logs.join("\n")).not.toContain("PATHSECRET");
  });
});

describe("Proxy-Authorization", () => {
  it("is kept as its scheme and [redacted] in the journal, as Authorization is", async () => {
    const s = await stub({ admin: { token: adminToken } });
    await s.call("/v1/resources/search?query=train", {
      headers: { "proxy-authorization": "Basic UFJPWFlTRUNSRVQ6cGFzcw==" },
    });
    await s.call("/v1/resources/search?query=alpha", { headers: { "proxy-authorization": "Bearer PROXYSECRET-2" } });
    const journal = await journalText(s.url);
    const { requests } = JSON.parse(journal) as { requests: { headers: Record<string, string> }[] };
    expect(requests.map((entry) => entry.headers["proxy-authorization"])).toEqual(["[redacted]", "Bearer [redacted]"]);
    expect(journal).not.toContain("UFJPWFlTRUNSRVQ6cGFzcw");
    expect(journal).not.toContain("PROXYSECRET");
  });
});

describe("the admin token sent where no token belongs", () => {
  it("is redacted in the journal — query, path, headers, body — and a query's or a header's is never logged", async () => {
    const s = await stub({ admin: { token: adminToken } });
    await s.call(`/v1/resources/search?query=${adminToken}&token=${encodeURIComponent(`x ${adminToken} y`)}`);
    await s.call("/v1/resources/search?query=train", { headers: { "x-admin-token": adminToken } });
    // A request line holds the path without its query, and no header.
    expect(s.logs.join("\n")).not.toContain("TOKENSECRET");
    await s.call(`/v1/projects/${adminToken}/cluster-machines/cm-1`, json("PATCH", { note: adminToken }));
    const journal = await journalText(s.url);
    const { requests } = JSON.parse(journal) as { requests: Record<string, unknown>[] };
    expect(requests).toHaveLength(3);
    expect(requests[0]?.query).toEqual({ query: "[redacted]", token: "x [redacted] y" });
    expect(journal).not.toContain("TOKENSECRET");
  });
});
