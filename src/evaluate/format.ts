// Number and duration formatting for result messages ("12 of 10,000 rows (0.12%) ...").

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** Percentage with two decimals; a tiny non-zero share shows as "<0.01", never "0.00". */
export function formatPercent(part: number, total: number): string {
  if (total <= 0 || part <= 0) return "0.00";
  const pct = (part / total) * 100;
  return pct < 0.005 ? "<0.01" : pct.toFixed(2);
}

const UNITS: [string, number][] = [
  ["d", 86_400],
  ["h", 3_600],
  ["m", 60],
  ["s", 1],
];

/** 266_400 -> "3d 2h"; the two largest units are precise enough for staleness. */
export function formatDuration(seconds: number): string {
  let rest = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const amount = Math.floor(rest / size);
    rest -= amount * size;
    if (amount > 0 || parts.length > 0) parts.push(`${amount}${unit}`);
  }
  const shown = parts.slice(0, 2).filter((part) => !/^0\D$/.test(part));
  return shown.length > 0 ? shown.join(" ") : "0s";
}
