/**
 * How answers are judged, shared by the generated cases (generators.ts) and the run's scripted probes
 * (update-probes.ts, key-probes.ts): every answer by the response checks and its documented headers
 * (header-rules.ts), and a search's answer by every search check besides.
 */
import type { Contract } from "@compute-api/contract";
import { type Access, responseVerdicts, searchVerdicts, type Verdicts } from "./checks.js";
import { clusterVerdicts } from "./cluster-rules.js";
import { createHeaderCheck } from "./header-rules.js";
import type { Answer } from "./http.js";
import { queryRuleVerdict, searchRuleVerdicts } from "./search-rules.js";

/** Judges of a run's answers. */
export interface Judges {
  /**
   * Judges an answer of the operation by the response checks and `more`; status 0 means no answer at all (a
   * dropped connection, no answer in time), which fails not_a_server_error and nothing else can be said of.
   */
  judge(operationId: string, more?: (answer: Answer) => Verdicts): (answer: Answer) => Verdicts;
  /** Judges the answer to a search of `query` by the response checks and every search check. */
  search(query: string): (answer: Answer) => Verdicts;
}

/** What the judges hold answers to. */
export interface JudgeOptions {
  contract: Contract;
  /** What the key sees, when it could be learned: search results are held to it. */
  access?: Access | undefined;
  resourceTypes: readonly string[];
}

/** The judges of a run. */
export function createJudges({ contract, access, resourceTypes }: JudgeOptions): Judges {
  const headers = createHeaderCheck(contract.spec);
  const judge: Judges["judge"] =
    (operationId, more = () => ({})) =>
    (answer) => {
      if (answer.status === 0) return { not_a_server_error: answer.text };
      const header = headers(operationId, answer);
      return {
        ...responseVerdicts(contract, operationId, answer),
        ...(header === undefined ? {} : { header_conformance: header }),
        ...more(answer),
      };
    };
  return {
    judge,
    search: (query) =>
      judge("searchResources", (answer) => {
        const rule = queryRuleVerdict(answer, query);
        return {
          ...(rule === undefined ? {} : { search_query_rules: rule }),
          ...searchVerdicts(answer, query, access, resourceTypes),
          ...searchRuleVerdicts(answer, query),
          ...clusterVerdicts(answer),
        };
      }),
  };
}
