// Legacy dashboard client. A comment naming imageName or /pods/{id}/stop is not code.
import { format } from "./networkvolumes";

const BASE = "https://rest.runpod.io/v1";

export async function stopPod(id: string) {
  return fetch(`${BASE}/pods/${id}/stop`, { method: "POST" });
}

export async function createTemplate() {
  const body = { name: "t", imageName: "repo/img:1", isServerless: false };
  return fetch(BASE + "/templates", { method: "POST", body: JSON.stringify(body) });
}

export function state(pod: any) {
  return pod.desiredStatus;
}
