/**
 * Request and response validation with express-openapi-validator, set up here (for compute servers and the stub): the contract's JSON
 * body parser, then the validator's routing, security check, request and response validation, with the checks it
 * lacks in between (`validator-gaps.ts`). It checks the contract's bounded copy of the spec and reads the query
 * with the contract's parser (the app's "query parser"), as the compiled contract does; `warm-up.ts` compiles it
 * before traffic, and its errors are answered by `error-handlers.ts`, translated into the contract's catalogue in
 * `validator-errors.ts`. The gateway holds traffic to the same spec with the compiled contract, and a differential
 * test keeps them answering alike.
 */
import {
  bearerToken,
  boundedSchemas,
  int32Format,
  loadSpec,
  type OpenApiDocument,
  unauthenticated,
} from "@compute-api/contract";
import { jsonBodyParser } from "@compute-api/runtime";
import type { Request, RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { discriminatedOneOfs } from "./discriminated-one-of.js";
import { contractQueryParser, requestBodies, undeclaredQueryParameters } from "./validator-gaps.js";
import { warmUp } from "./warm-up.js";

/** Checks an API key; resolve false or throw the contract's `unauthenticated(…)` to refuse it. */
export type Authenticate = (token: string, req: Request) => boolean | Promise<boolean>;

/**
 * What happens to a response that breaks the spec: `enforce` answers 500 instead, `report` sends it and tells
 * `onResponseViolation`, `off` does not check responses.
 */
export type ResponseMode = "enforce" | "report" | "off";

/** A response that broke the spec, as `report` sees it: the validator's message and the request. */
export type ResponseViolation = (error: Error & { errors?: { path: string; message: string }[] }, req: Request) => void;

/** Options of the contract validator. */
export interface ContractValidatorOptions {
  /** The bundled document; default the one `loadSpec()` reads. */
  spec?: OpenApiDocument;
  /** Largest request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /** `enforce` (default): a response that breaks the spec becomes a 500; `report`: it is sent and reported; `off`: responses are not checked. */
  responses?: ResponseMode;
  /** With `report`: called once per response that breaks the spec. */
  onResponseViolation?: ResponseViolation;
  /** Checks the bearer token after its form was checked; default: any well-formed token passes. */
  authenticate?: Authenticate;
}

/** The validator: middleware to mount, and a warm-up that compiles every schema before traffic arrives. */
export interface ContractValidator {
  /**
   * JSON body parser (with the body limit) followed by express-openapi-validator and the checks it lacks. Mount it
   * on an app whose query parser is the contract's, `app.set("query parser", parseQueryString)`; on any other it answers 500.
   */
  middleware: RequestHandler[];
  /** Compiles the validators of every operation by sending each operation's example through them; throws when the spec does not compile. */
  warmUp(): Promise<void>;
}

/** express-openapi-validator's `validateResponses` for a mode. */
function responseValidation({ responses = "enforce", onResponseViolation }: ContractValidatorOptions) {
  if (responses === "off") return false;
  if (responses === "enforce") return { allErrors: true };
  return {
    allErrors: true,
    onError: (error: Error, _body: unknown, req: Request) => onResponseViolation?.(error, req),
  };
}

/** Builds the validator. Schemas compile lazily inside express-openapi-validator; call warmUp() before listening. */
export function createContractValidator(options: ContractValidatorOptions = {}): ContractValidator {
  const spec = options.spec ?? loadSpec();
  const authenticate = options.authenticate;
  const validator = OpenApiValidator.middleware({
    // A copy (the validator changes what it is given) whose size-limited schemas check items and keys within the
    // limit only, and whose discriminated oneOfs check the branch their tag names only.
    apiSpec: discriminatedOneOfs(boundedSchemas(spec)) as never,
    validateApiSpec: true,
    // Unknown query parameters are refused by undeclaredQueryParameters below, which names them as sent.
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: responseValidation(options),
    validateSecurity: {
      handlers: {
        bearerAuth: async (req) => {
          const token = bearerToken(req);
          if (!token) throw unauthenticated("Authorization header must be `Bearer <API key>`");
          return authenticate ? authenticate(token, req) : true;
        },
      },
    },
    validateFormats: true,
    ajvFormats: { mode: "full" },
    formats: { int32: int32Format },
  }) as RequestHandler[];
  // The body check belongs after security (401 first) and before the request validator, as in the compiled contract.
  const at = validator.findIndex((handler) => handler.name === "requestMiddleware");
  if (at < 0)
    throw new Error(
      "express-openapi-validator no longer has a requestMiddleware: @compute-api/server's validator set-up needs a look",
    );

  const middleware: RequestHandler[] = [
    contractQueryParser,
    jsonBodyParser(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }) as RequestHandler,
    ...validator.slice(0, at),
    requestBodies(spec),
    ...validator.slice(at),
    undeclaredQueryParameters(spec),
  ];
  return { middleware, warmUp: () => warmUp(spec, middleware) };
}
