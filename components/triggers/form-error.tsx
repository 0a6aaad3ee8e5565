/**
 * Why the server refused a trigger dialog's form, under its fields. In the dialog's footer it squeezed
 * Save and Create into two-line buttons.
 */
export function FormError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" data-testid="trigger-form-error" className="col-span-2 text-xs text-rose-300">
      {error}
    </p>
  );
}
