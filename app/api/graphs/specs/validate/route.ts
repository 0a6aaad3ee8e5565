import { yamlBodyOf } from "@/server/api/http/yaml-body";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/specs/validate — checks a spec without saving it (the editor's specs.validate). The
 * body as for POST /api/graphs/specs. 200 `{ ok, issues }`: every issue located (path, line, column).
 */
export const POST = restRoute({
  handle: async ({ services, request }) => {
    const yaml = await yamlBodyOf(request, "spec");
    return typeof yaml === "string" ? services.specs.validateAsync(yaml) : yaml;
  },
});
