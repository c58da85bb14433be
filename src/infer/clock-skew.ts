/** Seconds of clock skew allowed between the writers' clocks and the ClickHouse server. */
export const CLOCK_SKEW_SECONDS = 300;
