/** Where the admin API is served (a module of its own: the CommonJS build of `./testing` takes it without Express). */
export const adminPrefix = "/__stub";
