/** The project's images, as `npm run images` and the container suites build them. */
export * from "./build-images.js";
export * from "./image-targets.js";
