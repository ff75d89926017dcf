export const pods = () => fetch("https://api.runpod.io/v2/pods");
