// Migrated dashboard client (v2). was imageName, was /pods/{id}/stop.
import { format } from "./networkvolumes";

const BASE = "https://api.runpod.io/v2";

export async function stopPod(id: string) {
  return fetch(`${BASE}/pods/${id}/action`, { method: "POST", body: JSON.stringify({ action: "stop" }) });
}

export async function createTemplate() {
  const body = { name: "t", image: "repo/img:1", serverless: false };
  return fetch(BASE + "/templates", { method: "POST", body: JSON.stringify(body) });
}

export function state(pod: any) {
  return pod.status;
}
