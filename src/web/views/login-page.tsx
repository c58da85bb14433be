// `/login`: an API key in, a session cookie out. The key field is never filled back in.
import { Layout, type PageContext } from "./layout.js";

export function LoginPage({ context, next, error }: { context: PageContext; next: string; error: string | null }) {
  return (
    <Layout title="Log in" context={context}>
      <form class="login" method="post" action="/login">
        <h1>Log in</h1>
        <p>Enter an API key of this daemon (API_KEYS or API_READONLY_KEYS; in the embedded demo, the key in DATA_DIR/api-key).</p>
        {error ? (
          <p class="error" role="alert" id="login-error">
            {error}
          </p>
        ) : null}
        <label for="key">API key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="current-password"
          required
          autofocus
          aria-describedby={error ? "login-error" : undefined}
          aria-invalid={error ? "true" : undefined}
        />
        <input type="hidden" name="next" value={next} />
        <button type="submit" class="primary">
          Log in
        </button>
      </form>
    </Layout>
  );
}
