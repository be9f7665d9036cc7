/** The validation gateway: a reverse proxy that holds a backend to the compute-api spec in both directions. */
export { createGateway, type Gateway } from "./app.js";
export type { GatewayMetrics } from "./metrics.js";
export { defaults, type GatewayOptions, parseUpstreamUrl } from "./options.js";
