// Serverless job client: the runtime API, never control-plane v1.
const endpointId = process.env.ENDPOINT_ID;
export const run = (input) =>
  fetch(`https://api.runpod.ai/v2/${endpointId}/runsync`, { method: "POST", body: JSON.stringify({ input }) });
