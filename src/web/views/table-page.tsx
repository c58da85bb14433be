// `/table/:table`: every metric a table feeds (affected-by), so a broken load shows its blast radius.
import type { TableDetailView } from "../../services/browse-service.js";
import { count, plural } from "../format.js";
import { Badge, MetricRows, STATUSES } from "./components.js";
import { Layout, type PageContext } from "./layout.js";

export function TablePage({ context, detail }: { context: PageContext; detail: TableDetailView }) {
  const { summary } = detail;
  return (
    <Layout title={detail.table} context={context}>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/">Overview</a> / table
      </nav>
      <h1>
        Table <code>{detail.table}</code>
      </h1>
      {detail.count === 0 ? (
        <p>No metric in the catalogue reads this table, through its base table, a join, a dimension or an input.</p>
      ) : (
        <>
          <p>
            A broken load of this table affects {plural(detail.count, "metric")}:{" "}
            {STATUSES.filter((s) => summary[s] > 0).map((s, i) => (
              <>
                {i > 0 ? ", " : ""}
                {count(summary[s])} <Badge status={s} />
              </>
            ))}
            .
          </p>
          <table>
            <caption>Metrics fed by {detail.table}, in catalogue order</caption>
            <thead>
              <tr>
                <th scope="col">Metric</th>
                <th scope="col">Reads it as</th>
                <th scope="col">Status</th>
                <th scope="col">Safe to use</th>
                <th scope="col">Since</th>
                <th scope="col" class="num">
                  Failing tests
                </th>
                <th scope="col">Tables</th>
              </tr>
            </thead>
            <MetricRows rows={detail.affected} now={context.now} extra="relationship" />
          </table>
        </>
      )}
    </Layout>
  );
}
