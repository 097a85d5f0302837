/**
 * A user or plan id: printable ASCII without spaces, as JWT and OpenID Connect subjects are. The
 * user id is the `sub` of its tokens and a path segment of `/admin/v1/users/{id}`.
 */
export const ACCOUNT_ID = {
  pattern: /^[\x21-\x7e]{1,200}$/,
  message: 'Must be 1 to 200 printable ASCII characters without spaces',
} as const;

/**
 * What the id of a new user or plan must also be: one every client can put in a path segment of
 * `/users/{id}` or `/plans/{id}`. `.` and `..` (any id of dots only) are dot segments that URL
 * clients resolve away (RFC 3986 5.2.4); `/` and `\` split the segment (WHATWG URLs read `\` as
 * `/`), and `%` begins an escape that proxies and clients decode differently. Existing ids are
 * still found by `ACCOUNT_ID` alone.
 */
export const NEW_ACCOUNT_ID_RULES: readonly { allows: (id: string) => boolean; message: string }[] =
  [
    {
      allows: (id) => !/^\.+$/.test(id),
      message: 'Must not be only dots: . and .. are not path segments',
    },
    {
      allows: (id) => !/[/\\%]/.test(id),
      message: 'Must not contain /, \\ or %: the id is a path segment',
    },
  ];

/**
 * Why `id` cannot name a new user or plan, whoever makes it (an administrator, or a provider's
 * sign-in that provisions its user); undefined when it can.
 */
export function newAccountIdProblem(id: string): string | undefined {
  if (!ACCOUNT_ID.pattern.test(id)) return ACCOUNT_ID.message;
  return NEW_ACCOUNT_ID_RULES.find((rule) => !rule.allows(id))?.message;
}
