/**
 * Where the admin API is served, and the header of a test session (modules of their own: the CommonJS build of
 * `./testing` takes them without Express).
 */
export const adminPrefix = "/__stub";

/** The header that names a request's test session (lower-case, as Node hands headers over). */
export const sessionHeader = "x-stub-session";
