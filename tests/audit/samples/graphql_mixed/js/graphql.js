// Template and endpoint management for the dashboard (GraphQL + REST v1).
const GRAPHQL_ENDPOINT = "https://api.runpod.io/graphql";
const REST = process.env.RUNPOD_REST_URL || "https://rest.runpod.io/v1";

async function graphql(query, variables = {}) {
  const res = await fetch(GRAPHQL_ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${process.env.RUNPOD_API_KEY}` },
    body: JSON.stringify({ query, variables }),
  });
  const json = await res.json();
  if (json.errors) throw new Error(json.errors.map((e) => e.message).join("; "));
  return json.data;
}

export async function saveTemplate(input) {
  const data = await graphql(
    `mutation saveTemplate($input: SaveTemplateInput) {
      saveTemplate(input: $input) { id name imageName isServerless }
    }`,
    { input },
  );
  return data.saveTemplate;
}

export async function deleteTemplate(templateName) {
  await graphql(`mutation { deleteTemplate(templateName: "${templateName}") }`);
}

export async function saveEndpoint(input) {
  const { saveEndpoint } = await graphql(
    `mutation saveEndpoint($input: EndpointInput!) {
      saveEndpoint(input: $input) { id name gpuIds workersMin workersMax scalerType scalerValue }
    }`,
    { input },
  );
  return saveEndpoint;
}

export const deleteEndpoint = (id) =>
  graphql("mutation deleteEndpoint($id: String!) { deleteEndpoint(id: $id) }", { id });

export async function createVolume(name, size, dataCenterId) {
  const mutation = `
    mutation createNetworkVolume($input: CreateNetworkVolumeInput!) {
      createNetworkVolume(input: $input) { id name size dataCenterId }
    }`;
  return (await graphql(mutation, { input: { name, size, dataCenterId } })).createNetworkVolume;
}

export async function addRegistry(name, username, password) {
  const q = "mutation saveRegistryAuth($input: SaveRegistryAuthInput!) { saveRegistryAuth(input: $input) { id name } }";
  return (await graphql(q, { input: { name, username, password } })).saveRegistryAuth;
}

// REST v1 for listing (faster than GraphQL for big accounts)
export async function listEndpoints() {
  const res = await fetch(`${REST}/endpoints?includeTemplate=true`, {
    headers: { Authorization: `Bearer ${process.env.RUNPOD_API_KEY}` },
  });
  return res.json();
}

export async function gpuTypes() {
  const data = await graphql(`query GpuTypes { gpuTypes { id displayName memoryInGb securePrice } }`);
  return data.gpuTypes;
}
