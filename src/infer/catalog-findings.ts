// What the warehouse tells about the catalogue after it is loaded: filters and expressions it
// cannot parse, column names written in another letter case. Kept beside the snapshot, never in
// it (the snapshot stays as loaded): each check or scan returns new findings, and one holder
// serves the newest to the reads. Values are replaced, never changed in place, so a cache can key
// on them.
import type { CatalogError, CatalogWarning } from "../catalog/types.js";

export interface CatalogFindings {
  /** metric -> why ClickHouse cannot parse its filter or an expression (such a metric stays `unknown`) */
  sql_errors: ReadonlyMap<string, CatalogError>;
  /** datasource|fragment -> ClickHouse's syntax error, or null when it parses (each asked once) */
  sql_checked: ReadonlyMap<string, string | null>;
  /**
   * Found by the last scan's schema read (plan/column-case.ts): a column name matching two of the
   * warehouse's ignoring case is an error of each metric reading it; one match, a warning.
   */
  case_errors: readonly CatalogError[];
  case_warnings: readonly CatalogWarning[];
}

export const NO_FINDINGS: CatalogFindings = {
  sql_errors: new Map(),
  sql_checked: new Map(),
  case_errors: [],
  case_warnings: [],
};

export interface FindingsHolder {
  current: () => CatalogFindings;
  /** the newest findings (a scan's, or the check at start); a value equal in content still replaces */
  set: (findings: CatalogFindings) => void;
}

export function createFindingsHolder(initial: CatalogFindings = NO_FINDINGS): FindingsHolder {
  let findings = initial;
  return {
    current: () => findings,
    set: (next) => {
      findings = next;
    },
  };
}
