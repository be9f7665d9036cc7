import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { createContractValidator } from "../src/validator.js";

describe("createContractValidator onRawBody", () => {
  it("hears the body bytes exactly as sent, while the body is still parsed and validated", async () => {
    const heard: string[] = [];
    const validator = createContractValidator({ responses: "off", onRawBody: (_req, body) => heard.push(body.toString("utf8")) });
    const app = express();
    app.use(validator.middleware);
    app.use((req, res) => {
      res.json({ id: "k", createTime: "2026-11-22T08:00:00Z", key: "cak_x", parsed: req.body as unknown });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const body = '{ "apikeyId" :\n "abcd" }';
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/api-keys`, {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body,
      });
      expect(await res.json()).toMatchObject({ parsed: { apikeyId: "abcd" } });
      expect(heard).toEqual([body]);
    } finally {
      server.close();
    }
  });
});
