#!/usr/bin/env node
// MCP server exposing pod, endpoint and billing tools.
// Talks to the REST API at https://rest.runpod.io/v1 (set RUNPOD_API_BASE to override).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { billingTools } from "./tools/billing.js";
import { endpointTools } from "./tools/endpoints.js";
import { podTools } from "./tools/pods.js";

const server = new McpServer({ name: "runpod", version: "1.4.0" });

for (const [name, tool] of Object.entries({ ...podTools, ...endpointTools, ...billingTools })) {
  server.tool(name, tool.description, tool.input.shape, async (args: any) => {
    const result = await tool.handler(args);
    return { content: [{ type: "text", text: typeof result === "string" ? result : JSON.stringify(result, null, 2) }] };
  });
}

await server.connect(new StdioServerTransport());
