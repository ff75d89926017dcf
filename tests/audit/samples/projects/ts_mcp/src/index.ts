#!/usr/bin/env node
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { RunpodClient } from "./client.js";
import { registerPodTools } from "./tools/pods.js";
import { registerVolumeTools } from "./tools/volumes.js";
import { registerTemplateTools } from "./tools/templates.js";
import { registerJobTools } from "./tools/jobs.js";

const apiKey = process.env.RUNPOD_API_KEY;
if (!apiKey) {
  console.error("RUNPOD_API_KEY is required");
  process.exit(1);
}

const server = new McpServer({ name: "runpod", version: "0.3.1" });
const client = new RunpodClient(apiKey);
registerPodTools(server, client);
registerVolumeTools(server, client);
registerTemplateTools(server, client);
registerJobTools(server, apiKey);
await server.connect(new StdioServerTransport());
