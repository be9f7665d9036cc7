/** Who each request acts for: set when its key is accepted, read when its handler runs. */

import { unauthenticated } from "@compute-api/contract";
import type { Request } from "express";

/** The principals of authenticated requests, weakly held: an entry goes with its request. */
export class Principals<Principal> {
  private readonly byRequest = new WeakMap<Request, Principal>();

  /** Records who a request whose key was accepted acts for. */
  set(req: Request, principal: Principal): void {
    this.byRequest.set(req, principal);
  }

  /** Who an authenticated request acts for; a 401 if the request never passed authentication. */
  of(req: Request): Principal {
    if (!this.byRequest.has(req)) throw unauthenticated();
    return this.byRequest.get(req) as Principal;
  }
}
