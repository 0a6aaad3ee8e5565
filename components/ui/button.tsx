import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "ghost" | "danger";

const LOOK: Record<Variant, string> = {
  primary: "bg-indigo-500 text-on-accent hover:bg-indigo-400 shadow-sm",
  secondary: "border border-white/15 text-zinc-200 hover:bg-white/5",
  ghost: "text-zinc-300 hover:bg-white/5 hover:text-white",
  danger: "border border-rose-500/40 text-rose-200 hover:bg-rose-500/10",
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: "sm" | "md";
}

/** The app's button. A disabled button keeps its `title`, which says why it is disabled. */
export function Button({ variant = "secondary", size = "md", className = "", type = "button", ...rest }: ButtonProps) {
  const pad = size === "sm" ? "px-2.5 py-1 text-xs" : "px-3.5 py-1.5 text-sm";
  return (
    <button
      type={type}
      className={`inline-flex items-center justify-center gap-1.5 rounded-lg font-semibold transition-colors disabled:cursor-not-allowed disabled:opacity-40 ${pad} ${LOOK[variant]} ${className}`}
      {...rest}
    />
  );
}
