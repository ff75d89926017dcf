import { z } from "zod";
import { runpodRequest } from "../runpod.js";

interface BillingRecord {
  time: string;
  amount: number;
}

export const billingTools = {
  "serverless-spend": {
    description: "Serverless spend per day for the last N days",
    input: z.object({ days: z.number().default(7), endpointId: z.string().optional() }),
    handler: async ({ days, endpointId }: { days: number; endpointId?: string }) => {
      const params = new URLSearchParams({ bucketSize: "day" });
      params.set("startTime", new Date(Date.now() - days * 86_400_000).toISOString());
      if (endpointId) params.set("endpointId", endpointId);
      const records = await runpodRequest<BillingRecord[]>("GET", `/billing/endpoints?${params}`);
      return records.reduce((sum, r) => sum + r.amount, 0).toFixed(2);
    },
  },
  "storage-spend": {
    description: "Network volume spend",
    input: z.object({}),
    handler: async () => {
      const records = await runpodRequest<BillingRecord[]>("GET", "/billing/networkvolumes", undefined, { bucketSize: "month" });
      return records.map((r) => `${r.time}: ${r.amount}`).join("\n");
    },
  },
  "gpu-catalog": {
    description: "GPU types and prices (v2 catalog)",
    input: z.object({}),
    handler: async () => v2Request<{ gpus: unknown[] }>("/catalog/gpus"),
  },
};

import { v2Request } from "../runpod.js";
