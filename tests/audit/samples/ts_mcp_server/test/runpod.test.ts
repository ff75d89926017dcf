import { afterEach, describe, expect, it, vi } from "vitest";
import { podTools } from "../src/tools/pods.js";

describe("pod-action", () => {
  afterEach(() => vi.restoreAllMocks());

  it("posts to the per-verb route", async () => {
    const fetchMock = vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("{}", { status: 200 }));
    await podTools["pod-action"].handler({ podId: "abc", action: "stop" });
    expect(fetchMock).toHaveBeenCalledWith("https://rest.runpod.io/v1/pods/abc/stop", expect.anything());
  });
});
