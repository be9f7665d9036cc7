/**
 * The failures the three operations answer beyond validation, each worded once (so that a client sees the same
 * body from the stub and from any implementation that uses these): the contract's error factories with the
 * service's messages.
 */
import { alreadyExists, type FieldViolation, notFound, permissionDenied } from "@compute-api/contract";

/** 403: the caller's user may not access the project (whether or not it exists). */
export const projectDenied = (projectId: string) =>
  permissionDenied(`permission denied on project '${projectId}'`, { projectId });

/** 403: the caller's user may not create API keys. */
export const createApiKeysDenied = () => permissionDenied("permission denied: this user may not create API keys");

/** 403: the caller's user may not search. */
export const searchDenied = () => permissionDenied("permission denied: this user may not search");

/** 404: no such machine in the project. */
export const clusterMachineNotFound = (projectId: string, id: string) =>
  notFound(`cluster machine '${id}' not found in project '${projectId}'`);

/** 409: the user already has a key with this id. */
export const apiKeyExists = (apikeyId: string) => alreadyExists(`API key '${apikeyId}' already exists`, { apikeyId });

/** `volumeIds[i]` names no volume of the project. */
export const volumeNotFound = (index: number, volumeId: string, projectId: string): FieldViolation => ({
  field: `volumeIds[${index}]`,
  description: `no volume '${volumeId}' in project '${projectId}'`,
  reason: "not-found",
});

/** `priceHr.value` is too long once normalized. */
export const priceTooLong = (maxLength: number): FieldViolation => ({
  field: "priceHr.value",
  description: `is longer than ${maxLength} characters once normalized`,
  reason: "maxLength",
});

/** `priceHr.value` would make the cluster's totals break the spec (clusterTotals' RangeError). */
export const priceBreaksTotals = (problem: string): FieldViolation => ({
  field: "priceHr.value",
  description: `makes the cluster's totals invalid: ${problem}`,
  reason: "range",
});
