// A MetricFlow metric's `config.meta`: free-form in dbt, passed through to the definition as
// `meta` (catalog/types.ts takes its type from here). A sub-object this project reads (say
// `metric_reliability`) gets its schema here, as a key of this shape: the reader and the
// definition's type follow. Imports nothing but zod, so the definition types can use it.
import { z } from "zod";

export const mfMetricMeta = z.looseObject({});

export type MfMetricMeta = z.output<typeof mfMetricMeta>;
