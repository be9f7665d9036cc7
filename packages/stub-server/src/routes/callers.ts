/** Who each request acts for: set by the validator's authenticate hook, read by the handlers. */

import { unauthenticated } from "@compute-api/contract";
import type { Request } from "express";
import type { User } from "../store/store.js";

/** The users of authenticated requests (weakly held: an entry goes with its request). */
export class Callers {
  private readonly users = new WeakMap<Request, User>();

  /** Records the user of a request whose key was accepted. */
  set(req: Request, user: User): void {
    this.users.set(req, user);
  }

  /** The user of an authenticated request; a 401 if the request never passed authentication. */
  of(req: Request): User {
    const user = this.users.get(req);
    if (!user) throw unauthenticated();
    return user;
  }
}
