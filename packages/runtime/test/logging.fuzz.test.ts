/** Fuzz of the request id taken from `x-request-id`: any value up to 16 KiB, read in time, never a throw. */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { expectFastTotalParser } from "../../../test/adversarial/support/header-fuzz.js";
import { requestId } from "../src/logging.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("requestId", () => {
  it("keeps a sane x-request-id and replaces any other with a UUID, in linear time, never throwing", () => {
    const read = (value: string) => requestId({ headers: { "x-request-id": value } } as unknown as IncomingMessage);
    expectFastTotalParser(read, ["req-", "a.b:c", "_"], (value, id) => {
      if (id !== value) expect(id).toMatch(uuid);
      // What goes back in a response header and into log lines is short and plain.
      expect(id).toMatch(/^[\w.:-]{1,128}$/);
    });
  });
});
