export const RELIABILITY_STATUSES = ["healthy", "degraded", "unreliable", "unknown"] as const;
