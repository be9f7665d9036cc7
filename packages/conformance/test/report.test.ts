import { describe, expect, it } from "vitest";
import { curl } from "../src/report.js";

describe("curl", () => {
  it.each([
    ["writes the run's own key as $KEY", "Bearer cak_own", `-H "authorization: Bearer $KEY"`],
    [
      "writes another key as it was sent, so the line reproduces an ignored_auth failure",
      "Bearer cak_conformance-unknown-1",
      `-H 'authorization: Bearer cak_conformance-unknown-1'`,
    ],
    ["writes a malformed Authorization as it was sent", "Bearer not a key", `-H 'authorization: Bearer not a key'`],
  ])("%s", (_name, authorization, want) => {
    expect(
      curl(
        "http://127.0.0.1:4010/",
        { method: "GET", path: "/v1/resources/search?query=a", headers: { authorization } },
        "cak_own",
      ),
    ).toContain(want);
  });

  it("quotes a body and a URL for the shell, single quotes included", () => {
    const line = curl(
      "https://api.example/base",
      {
        method: "POST",
        path: "/v1/api-keys?x='1'",
        headers: { "content-type": "application/json" },
        body: `{"apikeyId":"it's"}`,
      },
      "k",
    );
    expect(line).toBe(
      `curl -X POST 'https://api.example/base/v1/api-keys?x='\\''1'\\''' -H 'content-type: application/json' --data-raw '{"apikeyId":"it'\\''s"}'`,
    );
  });
});
