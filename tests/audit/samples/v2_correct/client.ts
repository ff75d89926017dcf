// v2 client. was imageName; was /pods/{podId}/stop; see networkvolumes docs.
import { networkVolumesApi } from "./networkvolumes";
import * as podsApi from "@acme/runpod-networkvolumes";

const BASE = "https://api.runpod.io/v2";
const RUNTIME = "https://api.runpod.ai/v2";

export const listPods = () => fetch(`${BASE}/pods`).then((r) => r.json()).then((b) => b.pods);
export const getPod = (id: string) => fetch(`${BASE}/pods/${id}`);
export const stopPod = (id: string) =>
  fetch(`${BASE}/pods/${id}/action`, { method: "POST", body: JSON.stringify({ action: "stop" }) });
export const volumes = () => fetch(BASE + "/network-volumes");
export const spend = () => fetch(`${BASE}/billing/serverless`);
export const runJob = (endpointId: string, input: unknown) =>
  fetch(`${RUNTIME}/${endpointId}/run`, { method: "POST", body: JSON.stringify({ input }) });
export const body = { name: "p", image: "img", gpu: { id: "NVIDIA A40", count: 1 }, ports: ["8888/http"] };
