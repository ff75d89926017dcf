import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { rawGet } from "../raw.js";

export function registerDebugTools(server: McpServer) {
  server.tool("raw-templates", "Raw template list (debug)", {}, async () => {
    const t = await rawGet("/templates");
    return { content: [{ type: "text", text: JSON.stringify(t) }] };
  });
}
