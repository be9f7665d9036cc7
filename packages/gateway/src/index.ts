/** The validation gateway: a reverse proxy that holds a backend to the compute-api spec in both directions. */
export type { ResponseValidationMode } from "@compute-api/contract";
export { createGateway, type Gateway, type GatewayApp } from "./app.js";
export { createForwarder, type Forwarder } from "./forwarder.js";
export type { GatewayMetrics } from "./metrics.js";
export { defaults, type GatewayOptions } from "./options.js";
export { RecordingRefused } from "./record.js";
