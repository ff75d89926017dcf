import { z } from "zod";
import { runpodRequest, v2Request } from "../runpod.js";

interface Pod {
  id: string;
  name: string;
  desiredStatus: string;
  costPerHr: number;
  imageName?: string;
  image?: string;
}

export const podTools = {
  "list-pods": {
    description: "List pods, optionally filtered by status",
    input: z.object({ status: z.enum(["RUNNING", "EXITED"]).optional(), gpuTypeId: z.string().optional() }),
    handler: async ({ status, gpuTypeId }: { status?: string; gpuTypeId?: string }) => {
      const pods = await runpodRequest<Pod[]>("GET", "/pods", undefined, { desiredStatus: status, gpuTypeId });
      return pods.map((p) => `${p.id} ${p.desiredStatus} $${p.costPerHr}/h ${p.name}`).join("\n");
    },
  },
  "get-pod": {
    description: "Get one pod",
    input: z.object({ podId: z.string() }),
    handler: async ({ podId }: { podId: string }) => runpodRequest<Pod>("GET", `/pods/${podId}`),
  },
  "create-pod": {
    description: "Create a GPU pod",
    input: z.object({ name: z.string(), imageName: z.string(), gpuTypeIds: z.array(z.string()).min(1) }),
    handler: async (args: { name: string; imageName: string; gpuTypeIds: string[] }) =>
      runpodRequest<Pod>("POST", "/pods", {
        name: args.name,
        imageName: args.imageName,
        gpuTypeIds: args.gpuTypeIds,
        gpuCount: 1,
        containerDiskInGb: 50,
        volumeInGb: 20,
        ports: ["8888/http", "22/tcp"],
      }),
  },
  "pod-action": {
    description: "Start, stop or restart a pod",
    input: z.object({ podId: z.string(), action: z.enum(["start", "stop", "restart"]) }),
    handler: async ({ podId, action }: { podId: string; action: string }) => {
      await runpodRequest("POST", `/pods/${podId}/${action}`);
      return `${action} sent to ${podId}`;
    },
  },
  "delete-pod": {
    description: "Terminate a pod",
    input: z.object({ podId: z.string() }),
    handler: async ({ podId }: { podId: string }) => {
      await runpodRequest("DELETE", "/pods/" + encodeURIComponent(podId));
      return "terminated";
    },
  },
  "pod-logs": {
    description: "Recent container logs (v2 only)",
    input: z.object({ podId: z.string() }),
    handler: async ({ podId }: { podId: string }) => v2Request<string>(`/pods/${podId}/logs?tail=200`),
  },
};
