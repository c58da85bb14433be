// The page for a request that cannot be answered: a clean 400, 403, 404, 429 or 500.
import { Layout, type PageContext } from "./layout.js";

const TITLES: Record<number, string> = {
  400: "Bad request",
  401: "Not logged in",
  403: "Not allowed",
  404: "Not found",
  429: "Too many requests",
  500: "Something went wrong",
  503: "Unavailable",
};

export function ErrorPage({ context, status, message }: { context: PageContext; status: number; message: string }) {
  const title = TITLES[status] ?? "Error";
  return (
    <Layout title={title} context={context}>
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href="/">Back to the overview</a>
      </p>
    </Layout>
  );
}
