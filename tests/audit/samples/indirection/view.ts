// Renders rows handed over by another module; no URL in sight.
export function hourly(p: Record<string, number>): number {
  return p["costPerHr"];
}

export function isUp(pod: { desiredStatus: string }): boolean {
  return pod.desiredStatus === "RUNNING";
}
