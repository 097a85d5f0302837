import { z } from 'zod';

/**
 * The `fields` query parameter: a comma-separated list of fields to return. Each name must be
 * one of `allowed`, so a misspelt field is reported instead of silently returning nothing.
 */
export function fieldsParam<const Field extends string>(allowed: readonly Field[]) {
  const allowedNames = new Set<string>(allowed);
  const isAllowed = (name: string): name is Field => allowedNames.has(name);
  return z
    .string()
    .meta({
      description:
        `Comma-separated names of the fields to return, each one of: ${allowed.join(', ')}. ` +
        'Without it, every field is returned.',
    })
    .transform((text, context): Field[] => {
      const names = text.split(',').map((name) => name.trim());
      const unknown = names.filter((name) => !isAllowed(name));
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          input: text,
          message: `Unknown field(s): ${unknown.map((name) => `"${name}"`).join(', ')}; allowed: ${allowed.join(', ')}`,
        });
        return z.NEVER;
      }
      return [...new Set(names.filter(isAllowed))];
    });
}
