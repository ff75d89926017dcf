const GQL = `https://api.runpod.io/graphql?api_key=${process.env.RUNPOD_API_KEY}`;
// mutation { podTerminate }  comment only
const DEPLOY = `mutation Deploy($input: PodFindAndDeployOnDemandInput) {
  podFindAndDeployOnDemand(input: $input) { id imageName machine { podHostId } }
}`;
export async function deploy(input) {
  const res = await fetch(GQL, { method: "POST", body: JSON.stringify({ query: DEPLOY, variables: { input } }) });
  return (await res.json()).data.podFindAndDeployOnDemand;
}
export const terminate = (podId) => fetch(GQL, { method: "POST",
  body: JSON.stringify({ query: "mutation { podTerminate(input: {podId: \"" + podId + "\"}) }" }) });
