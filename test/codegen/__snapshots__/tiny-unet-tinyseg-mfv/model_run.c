int model_run(void) {
  int rc;
  /* op 0: conv2d -> tensor 3 'inc/conv1' */
  mcusim_kernel_0(op0_p, op0_a_fsum, op0_a_mult, op0_a_shift, (const int32_t*)(const void*)mcusim_const_t2, (const int8_t*)(const void*)mcusim_const_t1, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 76800));
  /* op 1: conv2d -> tensor 6 'inc/conv2' */
  mcusim_kernel_0(op1_p, op1_a_fsum, op1_a_mult, op1_a_shift, (const int32_t*)(const void*)mcusim_const_t5, (const int8_t*)(const void*)mcusim_const_t4, (const int8_t*)(void*)(arena + 76800), (int8_t*)(void*)(arena + 0));
  /* op 2: maxPool2d -> tensor 7 'down1/maxpool' */
  mcusim_kernel_1(op2_p, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 76800));
  /* op 3: spill -> storage slot 6, MFV-compressed when smaller, through the I/O buffer */
  mcusim_kernel_2(op3_p);
  rc = model_spill(&model_slots[0], arena + 0, arena + 97024, (int32_t*)(void*)(arena + 96000));
  if (rc != 0) return rc;
  /* op 4: conv2d -> tensor 10 'down1/conv1' */
  mcusim_kernel_0(op4_p, op4_a_fsum, op4_a_mult, op4_a_shift, (const int32_t*)(const void*)mcusim_const_t9, (const int8_t*)(const void*)mcusim_const_t8, (const int8_t*)(void*)(arena + 76800), (int8_t*)(void*)(arena + 0));
  /* op 5: conv2d -> tensor 13 'down1/conv2' */
  mcusim_kernel_0(op5_p, op5_a_fsum, op5_a_mult, op5_a_shift, (const int32_t*)(const void*)mcusim_const_t12, (const int8_t*)(const void*)mcusim_const_t11, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 57600));
  /* op 6: maxPool2d -> tensor 14 'down2/maxpool' */
  mcusim_kernel_1(op6_p, (const int8_t*)(void*)(arena + 57600), (int8_t*)(void*)(arena + 19200));
  /* op 7: conv2d -> tensor 17 'down2/conv1' */
  mcusim_kernel_0(op7_p, op7_a_fsum, op7_a_mult, op7_a_shift, (const int32_t*)(const void*)mcusim_const_t16, (const int8_t*)(const void*)mcusim_const_t15, (const int8_t*)(void*)(arena + 19200), (int8_t*)(void*)(arena + 0));
  /* op 8: conv2d -> tensor 20 'down2/conv2' */
  mcusim_kernel_0(op8_p, op8_a_fsum, op8_a_mult, op8_a_shift, (const int32_t*)(const void*)mcusim_const_t19, (const int8_t*)(const void*)mcusim_const_t18, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 28800));
  /* op 9: maxPool2d -> tensor 21 'down3/maxpool' */
  mcusim_kernel_1(op9_p, (const int8_t*)(void*)(arena + 28800), (int8_t*)(void*)(arena + 0));
  /* op 10: conv2d -> tensor 24 'down3/conv1' */
  mcusim_kernel_0(op10_p, op10_a_fsum, op10_a_mult, op10_a_shift, (const int32_t*)(const void*)mcusim_const_t23, (const int8_t*)(const void*)mcusim_const_t22, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 9600));
  /* op 11: conv2d -> tensor 27 'down3/conv2' */
  mcusim_kernel_0(op11_p, op11_a_fsum, op11_a_mult, op11_a_shift, (const int32_t*)(const void*)mcusim_const_t26, (const int8_t*)(const void*)mcusim_const_t25, (const int8_t*)(void*)(arena + 9600), (int8_t*)(void*)(arena + 0));
  /* op 12: transposeConv -> tensor 31 'up1/up' */
  mcusim_kernel_3(op12_p, op12_a_mult, op12_a_shift, (const int32_t*)(const void*)mcusim_const_t30, (const int8_t*)(const void*)mcusim_const_t29, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 48000));
  /* op 13: concatenation -> tensor 32 'up1/concat' */
  mcusim_kernel_4(op13_p, (const int8_t*)(void*)(arena + 28800), (const int8_t*)(void*)(arena + 48000), (int8_t*)(void*)(arena + 0));
  /* op 14: conv2d -> tensor 35 'up1/conv1' */
  mcusim_kernel_0(op14_p, op14_a_fsum, op14_a_mult, op14_a_shift, (const int32_t*)(const void*)mcusim_const_t34, (const int8_t*)(const void*)mcusim_const_t33, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 28800));
  /* op 15: conv2d -> tensor 38 'up1/conv2' */
  mcusim_kernel_0(op15_p, op15_a_fsum, op15_a_mult, op15_a_shift, (const int32_t*)(const void*)mcusim_const_t37, (const int8_t*)(const void*)mcusim_const_t36, (const int8_t*)(void*)(arena + 28800), (int8_t*)(void*)(arena + 0));
  /* op 16: transposeConv -> tensor 42 'up2/up' */
  mcusim_kernel_3(op16_p, op16_a_mult, op16_a_shift, (const int32_t*)(const void*)mcusim_const_t41, (const int8_t*)(const void*)mcusim_const_t40, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 96000));
  /* op 17: concatenation -> tensor 43 'up2/concat' */
  mcusim_kernel_4(op17_p, (const int8_t*)(void*)(arena + 57600), (const int8_t*)(void*)(arena + 96000), (int8_t*)(void*)(arena + 0));
  /* op 18: conv2d -> tensor 46 'up2/conv1' */
  mcusim_kernel_0(op18_p, op18_a_fsum, op18_a_mult, op18_a_shift, (const int32_t*)(const void*)mcusim_const_t45, (const int8_t*)(const void*)mcusim_const_t44, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 76800));
  /* op 19: conv2d -> tensor 49 'up2/conv2' */
  mcusim_kernel_0(op19_p, op19_a_fsum, op19_a_mult, op19_a_shift, (const int32_t*)(const void*)mcusim_const_t48, (const int8_t*)(const void*)mcusim_const_t47, (const int8_t*)(void*)(arena + 76800), (int8_t*)(void*)(arena + 38400));
  /* op 20: transposeConv -> tensor 53 'up3/up' */
  mcusim_kernel_3(op20_p, op20_a_mult, op20_a_shift, (const int32_t*)(const void*)mcusim_const_t52, (const int8_t*)(const void*)mcusim_const_t51, (const int8_t*)(void*)(arena + 38400), (int8_t*)(void*)(arena + 0));
  /* op 21: fetchingConv2d (storage slot 6, streamed row by row into its row window) -> tensor 56 'up3/conv1' */
  rc = model_fetch(&model_slots[0], arena + 41280);
  if (rc != 0) return rc;
  {
    int32_t pr[25];
    uint32_t filled = 0, row, k;
    int32_t last;
    model_decoder dec;
    model_decoder_open(&dec, &model_slots[0]);
    for (k = 0; k < 25u; ++k) pr[k] = op21_p[k];
    for (row = 0; row < 80u; ++row) {
      last = (int32_t)(row % 80u) * 1 - 1 + 2;
      if (last > 79) last = 79;
      model_fill_rows(&dec, arena + 38400, 960u, 3u, 80u, &filled, (int32_t)(row / 80u * 80u) + last + 1);
      pr[20] = (int32_t)row;
      pr[21] = (int32_t)row + 1;
      mcusim_kernel_5(pr, op21_a_mult, op21_a_shift, (const int32_t*)(const void*)mcusim_const_t55, (const int8_t*)(const void*)mcusim_const_t54, (int8_t*)(void*)(arena + 76800), (const int8_t*)(void*)(arena + 0), (const int8_t*)(void*)(arena + 38400));
    }
    model_fill_rows(&dec, arena + 38400, 960u, 3u, 80u, &filled, 80);
  }
  /* op 22: conv2d -> tensor 59 'up3/conv2' */
  mcusim_kernel_0(op22_p, op22_a_fsum, op22_a_mult, op22_a_shift, (const int32_t*)(const void*)mcusim_const_t58, (const int8_t*)(const void*)mcusim_const_t57, (const int8_t*)(void*)(arena + 76800), (int8_t*)(void*)(arena + 0));
  /* op 23: conv2d -> tensor 62 'outc' */
  mcusim_kernel_0(op23_p, op23_a_fsum, op23_a_mult, op23_a_shift, (const int32_t*)(const void*)mcusim_const_t61, (const int8_t*)(const void*)mcusim_const_t60, (const int8_t*)(void*)(arena + 0), (int8_t*)(void*)(arena + 76800));
  return 0;
}
