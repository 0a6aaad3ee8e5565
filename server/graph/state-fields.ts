import type { z } from "zod";
import type { GraphStateSchema } from "./state";

/**
 * The state schema of a run, field by field: what a node's completion checks its writes against. One
 * per compiled graph; a subgraph's nodes are checked against the run's (the outermost graph's) schema,
 * since that is the one the shared state is stored and loaded with.
 */
export class StateFields {
  /** Field → its schema, or null for a field the schema does not name and lets through (or strips). */
  private readonly schemas = new Map<string, z.ZodType | null>();

  constructor(private readonly schema: GraphStateSchema) {}

  /** Why `value` may not be stored in `field`, or null when the field's schema accepts it. */
  problemWith(field: string, value: unknown): string | null {
    const schema = this.schemaOf(field);
    if (schema === null) return null;
    const parsed = schema.safeParse(value);
    if (parsed.success) return null;
    return parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
  }

  private schemaOf(field: string): z.ZodType | null {
    let schema = this.schemas.get(field);
    if (schema === undefined) {
      const shape = this.schema.shape as unknown as Record<string, z.ZodType>;
      // An undeclared field is checked by the schema's catchall (a strict schema's `never`), if it has one.
      schema = Object.hasOwn(shape, field) ? shape[field] : ((this.schema.def.catchall as z.ZodType | undefined) ?? null);
      this.schemas.set(field, schema);
    }
    return schema;
  }
}
