import { z } from "zod";
import { JOB_API, runpodRequest, v2Request } from "../runpod.js";

interface Endpoint {
  id: string;
  name: string;
  workersMin: number;
  workersMax: number;
}

export const endpointTools = {
  "endpoint-overview": {
    description: "Config, health and workers of one endpoint",
    input: z.object({ endpointId: z.string() }),
    handler: async ({ endpointId }: { endpointId: string }) => {
      // three APIs in one go: REST v1 config, job API health, REST v2 workers
      const [endpoint, health, workers] = await Promise.all([
        runpodRequest<Endpoint>("GET", `/endpoints/${endpointId}`),
        fetch(`${JOB_API}/${endpointId}/health`, {
          headers: { Authorization: `Bearer ${process.env.RUNPOD_API_KEY}` },
        }).then((r) => r.json()),
        v2Request<{ workers: unknown[] }>(`/serverless/${endpointId}/workers`),
      ]);
      return { name: endpoint.name, scale: `${endpoint.workersMin}-${endpoint.workersMax}`, health, workers: workers.workers.length };
    },
  },
  "scale-endpoint": {
    description: "Set min/max workers",
    input: z.object({ endpointId: z.string(), min: z.number(), max: z.number() }),
    handler: async ({ endpointId, min, max }: { endpointId: string; min: number; max: number }) =>
      runpodRequest<Endpoint>("PATCH", `/endpoints/${endpointId}`, { workersMin: min, workersMax: max }),
  },
  "run-job": {
    description: "Run a job synchronously",
    input: z.object({ endpointId: z.string(), input: z.record(z.unknown()) }),
    handler: async ({ endpointId, input }: { endpointId: string; input: Record<string, unknown> }) => {
      const res = await fetch(`${JOB_API}/${endpointId}/runsync`, {
        method: "POST",
        headers: { Authorization: `Bearer ${process.env.RUNPOD_API_KEY}`, "Content-Type": "application/json" },
        body: JSON.stringify({ input }),
      });
      return res.json();
    },
  },
  "list-endpoints": {
    description: "All serverless endpoints",
    input: z.object({}),
    handler: async () => {
      const eps = await runpodRequest<Endpoint[] | { endpoints: Endpoint[] }>("GET", "/endpoints");
      const list = Array.isArray(eps) ? eps : eps.endpoints;
      return list.map((e) => `${e.id} ${e.name}`).join("\n");
    },
  },
};
