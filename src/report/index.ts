// Public surface of the report layer (above optimizer and codegen, below cli): collects what one
// model and pass list look like (collectReport) and renders it as one self-contained HTML page
// (renderReportHtml). Returns strings; the CLI writes the file.
export * from './arena-totals.ts';
export * from './collect-report.ts';
export * from './render-report-html.ts';
export * from './kernel-libraries.ts';
