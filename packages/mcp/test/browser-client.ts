/**
 * A page's MCP client: the SDK's own client and Streamable HTTP transport, bundled for the browser. It reads the
 * endpoint and the client token from the page's fragment (`#<url> <token>`), lists the tools, calls a search, and
 * leaves what happened in `window.mcpResult`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** What the page found. */
export interface BrowserResult {
  tools?: string[];
  sessionId?: string | undefined;
  searchText?: string;
  error?: string;
}

async function run(): Promise<BrowserResult> {
  const [url = "", token = ""] = decodeURIComponent(location.hash.slice(1)).split(" ");
  const client = new Client({ name: "browser-page", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const search = await client.callTool({ name: "searchResources", arguments: { query: "train type:cluster" } });
    const [first] = search.content as { type: string; text?: string }[];
    return { tools: tools.map((t) => t.name), sessionId: transport.sessionId, searchText: first?.text ?? "" };
  } catch (error) {
    return { error: String(error) };
  } finally {
    await client.close();
  }
}

(window as unknown as { mcpResult: Promise<BrowserResult> }).mcpResult = run();
